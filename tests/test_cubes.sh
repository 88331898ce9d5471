#!/bin/sh
# test_cubes.sh - the texla-cubes application end to end. Run from the repository root:
#   sh tests/test_cubes.sh [BUILD_DIR]     (default build; uses BUILD_DIR/bin/texla-cubes)
# Last line: "N passed, M failed, K skipped" (tests/run.sh adds it up).
#
# HOW THE IMAGES ARE CHECKED. With python3 (its standard library only: zlib and struct; chunk
# CRCs, IHDR, the IDAT stream inflated and un-filtered) each PNG is decoded to its size, its
# number of distinct colours, the number of "cube" pixels and a SHA-256 of the pixels. Cube
# pixels are saturated ones (max - min channel > 60): the sky (158, 178, 204) and the grey
# ground never are, the orange, blue, green and red cubes are, so a frame that lost its cubes
# fails even though sky and ground make it non-blank. Non-blank = more than 50 colours and more
# than 0.5% cube pixels. Without python3 only the signature is checked, "non-blank" falls back
# to a file size heuristic (a 320x200 frame of one colour deflates to well under 2 KB; the
# scene is over 10 KB), and each pixel-level check is reported as such (a SKIP for the cube
# count). Runs with and without the shot are compared by the SHA-256 of the files (sha256sum,
# else cksum) and, with python3, of the pixels.
#
# CHECKED (a 12-cube wall, 320x200 frames, <= 45 frames: seconds on llvmpipe):
#  - headless run: exit 0, the statistics lines (median and p95 of frame and solver time, LCP
#    sizes), the one-line summary (scene, cubes, solver, frame and solver ms, rows, nonzeros,
#    unsolved frames), a valid non-blank 8-bit RGBA PNG of the asked size; the default solver is
#    the sparse (matrix-free) one;
#  - --solver dense and --mode islands with a shot, --scene pyramid and --scene pile: exit 0, the
#    solver and scene reported, non-blank PNGs;
#  - an LCP left unsolved (--iters 1 with a shot) is flagged: a WARNING line and "unsolved N/M"
#    with N > 0 in the summary;
#  - the same run with --shoot 1 (islands mode too): exit 0, says it shot, a valid non-blank PNG
#    that differs from the run without the shot; the same shot run twice gives the same file
#    (the simulation is deterministic);
#  - the window path under xvfb-run (else $DISPLAY; else SKIP): renders and writes its screenshot
#    after --frames (the window's size, non-blank);
#  - keys and the mouse, sent through the X server (tests/xinput.py: XTEST): a click, Space, P,
#    M, ], [, +, -, Left, Right, N, H, R, F, 2, Q: the demo takes them, writes its PNG and exits 0;
#  - no display (DISPLAY and WAYLAND_DISPLAY unset, no --headless): falls back to headless by
#    itself, says so, writes the PNG;
#  - the HUD: the window screenshot has the HUD's text colour in its top-left panel, a --no-hud
#    run has none anywhere (pnginfo.py counts exact colours in a rectangle);
#  - --help exits 0 and lists the options and the keys; --backend fragment and compute run and
#    say which backend ran; --headless without --png says it writes no picture; headless runs
#    print progress lines (TEXLA_DEMO_PROGRESS_S makes them frequent);
#  - usage errors exit 2 with the usage text on stderr, name the option, and write no file (--solver and --scene
#    with unknown names among them).
B=${1:-build}
X=$B/bin/texla-cubes
case $X in /*) ;; *) X=$(pwd)/$X ;; esac
. "$(dirname "$0")/demo_lib.sh"

if [ ! -x "$X" ]; then
    fail "$X is not built (make $X)"
    summary
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/texla-cubes-test.XXXXXX") || { fail "mktemp"; summary; }
trap 'rm -rf "$T"' EXIT
TO=""
command -v timeout >/dev/null 2>&1 && TO="timeout 120"
HASH=""
if command -v sha256sum >/dev/null 2>&1; then HASH=sha256sum; else HASH=cksum; fi
file_hash() { $HASH < "$1" | cut -d' ' -f1; }
file_size() { wc -c < "$1" | tr -d ' '; }

# check_png NAME FILE W H: a valid, non-blank PNG of W x H with the cubes in it
check_png() {
    name=$1 file=$2 w=$3 h=$4
    png_info "$file"; rc=$?
    if [ $rc -eq 1 ]; then fail "$name: $file is not a valid PNG: $PERR"; return 1; fi
    pass "$name: PNG signature"
    if [ $rc -eq 2 ]; then
        sz=$(file_size "$file")
        if [ "$sz" -gt 10000 ]; then pass "$name: non-blank by file size ($sz bytes > 10000; no python3)"
        else fail "$name: $sz bytes: a blank frame? (file size heuristic, no python3)"; fi
        skip "$name: pixel checks (no python3 to decode the PNG)"
        return 2
    fi
    if [ "$PW" = "$w" ] && [ "$PH" = "$h" ] && [ "$PCH" = 4 ]; then pass "$name: decodes as 8-bit RGBA ${w}x$h"
    else fail "$name: size ${PW}x$PH with $PCH channels, want ${w}x$h RGBA"; fi
    min=$((PW * PH / 200))
    if [ "$PCOL" -gt 50 ] && [ "$PSAT" -gt "$min" ]; then
        pass "$name: non-blank ($PCOL colours, $PSAT cube pixels > $min; decoded with python3)"
    else
        fail "$name: blank or no cubes ($PCOL colours, $PSAT cube pixels, want > 50 and > $min)"
    fi
    return 0
}

G="--cubes 12 --width 320 --height 200"

# ---- 1. headless run without a shot ----
$TO "$X" --headless --frames 45 $G --png "$T/still.png" > "$T/out1" 2> "$T/err1"
rc=$?
if [ $rc -eq 0 ]; then pass "headless run exits 0"
else fail "headless run exits $rc: $(cat "$T/err1")"; fi
check "headless run prints frame time median and p95" \
    grep -Eq 'frame \(ms\) +median +[0-9.]+ +p95 +[0-9.]+' "$T/out1"
check "headless run prints solver time median and p95" \
    grep -Eq 'solver \(ms\) +median +[0-9.]+ +p95 +[0-9.]+' "$T/out1"
check "headless run prints LCP sizes" grep -Eq 'LCP rows \(all\) +median +[1-9][0-9.]* ' "$T/out1"
check "headless run: 12 bodies, the sparse solver by default, no shot" \
    grep -q '12 bodies, mode sparse.*no shot' "$T/out1"
check "headless run prints the one-line summary" \
    grep -Eq '^texla-cubes: summary scene wall cubes 12 solver sparse frames 45 \| frame [0-9.]+ ms .* solver [0-9.]+ ms .*\| rows [1-9][0-9]* nnz [1-9][0-9]* .*unsolved [0-9]+/45' "$T/out1"
check "headless run says where it wrote the PNG" grep -Fq "wrote $T/still.png" "$T/out1"
check_png "no shot" "$T/still.png" 320 200; have=$?
SHA_STILL=$PSHA; FH_STILL=$(file_hash "$T/still.png")

# ---- 2. the same with a shot: another picture; deterministic ----
$TO "$X" --headless --frames 45 $G --shoot 1 --png "$T/shot.png" > "$T/out2" 2> "$T/err2"
rc=$?
if [ $rc -eq 0 ]; then pass "headless run with --shoot 1 exits 0"
else fail "headless run with --shoot exits $rc: $(cat "$T/err2")"; fi
check "the shot run says it shot (13 bodies)" grep -q '13 bodies.*shot at frame 1' "$T/out2"
check_png "shot" "$T/shot.png" 320 200
FH_SHOT=$(file_hash "$T/shot.png")
check "the shot changes the picture (file hashes, $HASH)" [ "$FH_SHOT" != "$FH_STILL" ]
if [ $have -eq 0 ] && [ -n "$PSHA" ]; then
    check "the shot changes the picture (pixel hashes)" [ "$PSHA" != "$SHA_STILL" ]
fi
$TO "$X" --headless --frames 45 $G --shoot 1 --png "$T/shot2.png" > /dev/null 2>&1
check "the same shot run twice gives the same file" [ "$(file_hash "$T/shot2.png")" = "$FH_SHOT" ]
$TO "$X" --headless --frames 45 $G --shoot 1 --mode islands --png "$T/islands.png" > "$T/out3" 2> "$T/err3"
rc=$?
if [ $rc -eq 0 ]; then pass "islands mode with a shot exits 0"
else fail "islands mode exits $rc: $(cat "$T/err3")"; fi
check "islands mode is reported" grep -q 'mode islands' "$T/out3"
check_png "islands" "$T/islands.png" 320 200
check "islands mode with the shot differs from the still wall too" \
    [ "$(file_hash "$T/islands.png")" != "$FH_STILL" ]

$TO "$X" --headless --frames 30 $G --shoot 1 --solver dense --png "$T/dense.png" > "$T/out3d" 2> "$T/err3d"
rc=$?
if [ $rc -eq 0 ]; then pass "dense solver with a shot exits 0"
else fail "dense solver exits $rc: $(cat "$T/err3d")"; fi
check "the dense solver is reported" grep -q 'summary scene wall cubes 13 solver dense' "$T/out3d"
check_png "dense" "$T/dense.png" 320 200
for sc in pyramid pile; do
    $TO "$X" --headless --frames 30 --scene $sc --cubes 14 --width 320 --height 200 \
        --png "$T/$sc.png" > "$T/out_$sc" 2> "$T/err_$sc"
    rc=$?
    if [ $rc -eq 0 ]; then pass "--scene $sc exits 0"
    else fail "--scene $sc exits $rc: $(cat "$T/err_$sc")"; fi
    check "--scene $sc: 14 cubes reported" grep -q "summary scene $sc cubes 14 solver sparse" "$T/out_$sc"
    check_png "$sc" "$T/$sc.png" 320 200
done
# an unsolved LCP is flagged: 1 Jacobi iteration a step (4 at most) cannot stop the projectile
$TO "$X" --headless --frames 40 $G --shoot 1 --iters 1 --png "$T/unsolved.png" > "$T/outu" 2> "$T/erru"
rc=$?
if [ $rc -eq 0 ]; then pass "--iters 1 with a shot exits 0"
else fail "--iters 1 exits $rc: $(cat "$T/erru")"; fi
check "an unsolved LCP prints a WARNING" grep -q 'WARNING: the LCP was not solved in [1-9]' "$T/outu"
check "an unsolved LCP is counted in the summary" grep -Eq 'unsolved [1-9][0-9]*/40$' "$T/outu"

# ---- 3. the window path ----
WIN=""
if command -v xvfb-run >/dev/null 2>&1; then
    WIN="xvfb-run"
    run_win() { $TO xvfb-run -a -s "-screen 0 640x480x24" "$@"; }
elif [ -n "$DISPLAY" ]; then
    WIN="\$DISPLAY"
    run_win() { $TO "$@"; }
fi
if [ -z "$WIN" ]; then
    skip "windowed run: no xvfb-run and no DISPLAY"
else
    run_win "$X" $G --frames 20 --shoot 1 --png "$T/window.png" > "$T/out4" 2> "$T/err4"
    rc=$?
    if [ $rc -eq 0 ]; then pass "windowed run ($WIN) exits 0"
    else fail "windowed run ($WIN) exits $rc: $(cat "$T/err4")"; fi
    check "windowed run took its screenshot in the window (not the headless fallback)" \
        grep -q 'window screenshot after 20 frames' "$T/out4"
    PNG_SPECS="$HUD_TEXT@0,0,320,90"
    if [ "$WIN" = "\$DISPLAY" ]; then # a window manager may resize it: size not checked
        png_info "$T/window.png"; check_png "window" "$T/window.png" "$PW" "$PH"
    else
        check_png "window" "$T/window.png" 320 200
    fi
    PNG_SPECS=""
    if [ -n "$PY" ]; then
        check "window: the HUD's text is drawn top left ($PCNT text-colour pixels > 300)" [ "${PCNT:-0}" -gt 300 ]
        run_win "$X" $G --frames 20 --shoot 1 --no-hud --png "$T/nohud.png" > /dev/null 2>&1
        png_info "$T/nohud.png" "$HUD_TEXT@0,0,4096,4096" "$HUD_ACCENT@0,0,4096,4096"
        set -- $PCNT
        check "window --no-hud: no pixel of the HUD's colours (text $1, accent $2)" [ "${1:-x},${2:-x}" = "0,0" ]
    else
        skip "window: HUD pixel checks (no python3)"
    fi
fi

# ---- 3b. keys and a click through the X server (the demo's callbacks) ----
if [ -z "$WIN" ] || [ -z "$PY" ]; then
    skip "keys and mouse: no display or no python3"
else
    mkdir -p "$T/keys"
    (cd "$T/keys" && run_win sh -c '"$0" --cubes 6 --width 320 --height 200 > out 2> err & pid=$!
        python3 "$1" wait:texla-cubes move:160,100 click key:space key:P key:M key:bracketright \
            key:bracketleft key:equal key:minus key:Left key:Right key:N key:H key:R key:F key:2 \
            sleep:1 key:q > xin 2>&1 || kill $pid
        wait $pid' "$X" "$LIB_DIR/xinput.py")
    rc=$?
    if [ $rc -eq 0 ] && [ ! -s "$T/keys/xin" ]; then pass "keys and mouse: the demo took them and quit on Q (exit 0)"
    else fail "keys and mouse: exit $rc: $(cat "$T/keys/xin" "$T/keys/err" 2>/dev/null | head -c 300)"; fi
    check "P wrote the window (texla-cubes-001.png)" grep -q 'wrote texla-cubes-001.png' "$T/keys/out"
    if png_info "$T/keys/texla-cubes-001.png"; then
        check "P: the window's PNG is 320 x 200" [ "$PW.$PH" = "320.200" ]
    else fail "P's PNG: $PERR"; fi
fi

# ---- 4. no display: falls back to headless by itself ----
(unset DISPLAY WAYLAND_DISPLAY; cd "$T" && $TO "$X" --cubes 6 --frames 5 --width 320 --height 200) > "$T/out5" 2> "$T/err5"
rc=$?
if [ $rc -eq 0 ]; then pass "no display: exits 0"
else fail "no display: exits $rc: $(cat "$T/err5")"; fi
check "no display: says it runs headless" grep -q 'running headless' "$T/out5"
check_png "no display (cubes.png)" "$T/cubes.png" 320 200

# ---- 5. help, backends, messages, progress ----
check_help texla-cubes "$X" --cubes --wall --mode --iters --omega --mu --backend --shoot \
    --headless --frames --png --no-hud --keys click Space pause R reset M mode "+ / -" "] / [" \
    "1 .. 5" P H Esc
for be in fragment compute; do
    $TO "$X" --headless --frames 3 --cubes 6 --width 64 --height 64 --backend $be > "$T/out7" 2> "$T/err7"
    rc=$?
    if [ $rc -eq 0 ] && grep -q "texla backend $be" "$T/out7"; then pass "--backend $be runs and says so"
    else fail "--backend $be: exit $rc, $(cat "$T/out7" "$T/err7" | head -c 300)"; fi
done
check "--headless without --png says it writes no picture" grep -q 'printing statistics only' "$T/out7"
TEXLA_DEMO_PROGRESS_S=0.01 $TO "$X" --headless --frames 10 --cubes 6 --width 64 --height 64 > /dev/null 2> "$T/err8"
check "headless progress lines ($(grep -c 'frame [0-9]*/10' "$T/err8") at 0.01 s intervals)" \
    grep -Eq '^texla-cubes: frame [0-9]+/10, [0-9.]+ fps, about [0-9]+ s left' "$T/err8"

# ---- 6. usage errors ----
usage_case() { # usage_case DESCRIPTION OPTION-NAMED ARGS...
    d=$1 o=$2; shift 2
    rm -f "$T/usage.png"
    $TO "$X" --headless --frames 2 "$@" --png "$T/usage.png" > "$T/out6" 2> "$T/err6"
    rc=$?
    if [ $rc -eq 2 ] && grep -q '^usage:' "$T/err6" && grep -q -- "$o" "$T/err6" && [ ! -e "$T/usage.png" ]; then
        pass "usage error exits 2 and names $o: $d"
    else
        fail "usage error $d: exit $rc (want 2), stderr: $(head -c 200 "$T/err6"), png written: $([ -e "$T/usage.png" ] && echo yes || echo no)"
    fi
}
usage_case "--mode sideways" --mode --mode sideways
usage_case "--solver cholesky" --solver --solver cholesky
usage_case "--scene castle" --scene --scene castle
usage_case "--cubes 0" --cubes --cubes 0
usage_case "--cubes x" --cubes --cubes x
usage_case "--wall 3" --wall --wall 3
usage_case "--wall 0x4" --wall --wall 0x4
usage_case "--width-cubes 100 --height-cubes 100" --width-cubes --width-cubes 100 --height-cubes 100
usage_case "--frames 0" --frames --frames 0
usage_case "--iters 0" --iters --iters 0
usage_case "--mu -1" --mu --mu -1
usage_case "--omega 0" --omega --omega 0
usage_case "--omega 3" --omega --omega 3
usage_case "--shoot -5" --shoot --shoot -5
usage_case "--backend gpu" --backend --backend gpu
usage_case "--height 8" --height --height 8
usage_case "unknown option --bogus" --bogus --bogus
usage_case "a stray argument" stray stray
rm -f "$T/cubes.png"
(cd "$T" && $TO "$X" --headless --frames 2 --cubes 6 --mode) > "$T/out6" 2> "$T/err6"
rc=$?
if [ $rc -eq 2 ] && grep -q '^usage:' "$T/err6" && grep -q -- --mode "$T/err6" && [ ! -e "$T/cubes.png" ]; then
    pass "usage error exits 2 and names --mode: --mode without a value"
else
    fail "usage error --mode without a value: exit $rc (want 2), stderr: $(head -c 200 "$T/err6")"
fi

summary
