# demo_lib.sh - sourced by the demos' end-to-end tests (tests/test_wave.sh, tests/test_cubes.sh):
# counters, the summary line, and the PNG decoder's results (tests/pnginfo.py, python3's
# standard library only; python3 is there wherever texla builds: the glad generator is
# python3-glad). Without python3 only the PNG signature is checked.
LIB_DIR=$(cd "$(dirname "$0")" && pwd)
P=0; F=0; S=0
pass() { P=$((P + 1)); echo "ok   $1"; }
fail() { F=$((F + 1)); echo "FAIL $1"; }
skip() { S=$((S + 1)); echo "SKIP $1"; }
check() { # check DESCRIPTION COMMAND...: pass when the command succeeds
    d=$1; shift
    if "$@"; then pass "$d"; else fail "$d"; fi
}
summary() { echo "$P passed, $F failed, $S skipped"; [ "$F" -eq 0 ]; exit $?; }

PY=""
command -v python3 >/dev/null 2>&1 && PY=python3

# png_info FILE [R,G,B@X0,Y0,X1,Y1]...: sets PW PH PCOL PMAG PSAT PSHA PCH (size, distinct
# colours, magenta and saturated pixels, pixel hash, channels: 4 RGBA, 3 RGB) and PCNT (the pixels of each given colour in its
# rectangle, space-separated; also of those in $PNG_SPECS, after the arguments' ones), or PERR;
# returns 1 on a bad file, 2 without python3
png_info() {
    PW=""; PH=""; PCOL=""; PMAG=""; PSAT=""; PSHA=""; PCH=""; PCNT=""; PERR=""
    sig=$(head -c 8 "$1" 2>/dev/null | od -An -tx1 | tr -d ' \n')
    if [ "$sig" != "89504e470d0a1a0a" ]; then PERR="no PNG signature ($sig)"; return 1; fi
    [ -n "$PY" ] || return 2
    out=$($PY "$LIB_DIR/pnginfo.py" "$@" $PNG_SPECS 2>&1)
    case $out in ERR*|'') PERR=$out; return 1 ;; esac
    set -- $out
    PW=$1; PH=$2; PCOL=$3; PMAG=$4; PSAT=$5; PSHA=$6; PCH=$7
    shift 7
    PCNT=$*
    return 0
}

# The HUD's colours (demos/common/hud.h: DEMO_HUD_TEXT_RGB, DEMO_HUD_ACCENT_RGB): the demos draw
# their glyphs' pixels in exactly these
HUD_TEXT=235,235,235
HUD_ACCENT=255,205,80

# check_help NAME PROGRAM WORDS...: --help exits 0 and its text (stdout) holds every word
check_help() {
    name=$1 prog=$2; shift 2
    out=$("$prog" --help 2>&1); rc=$?
    if [ $rc -ne 0 ]; then fail "$name --help exits $rc, want 0"; return; fi
    missing=""
    for w in "$@"; do
        case $out in *"$w"*) ;; *) missing="$missing '$w'" ;; esac
    done
    if [ -z "$missing" ]; then pass "$name --help exits 0 and lists the options and keys ($*)"
    else fail "$name --help does not mention:$missing"; fi
}
