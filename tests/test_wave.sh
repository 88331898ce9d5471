#!/bin/sh
# test_wave.sh - the texla-wave application end to end. Run from the repository root:
#   sh tests/test_wave.sh [BUILD_DIR]      (default build; uses BUILD_DIR/bin/texla-wave)
# Last line: "N passed, M failed, K skipped" (tests/run.sh adds it up).
#
# HOW THE IMAGES ARE CHECKED: a PNG is decoded here with python3's standard library only (zlib
# and struct: chunk CRCs, IHDR, the IDAT stream inflated and un-filtered), which gives its size,
# the number of distinct RGBA colours, the number of magenta pixels (the demo's fragment shader
# paints NaN/Inf heights vec3(1, 0, 1); counted as R and B both above G + 128, because the green
# channel need not come out exactly 0 -- llvmpipe gives (255, 18, 255) -- while the lit water
# never has R > G: its base colour has G > R, and its specular and Fresnel terms add at least as
# much to G as to R) and a SHA-256 of the pixels (not of the file, so compression settings cannot
# matter). python3 is there wherever texla builds (the
# Makefile's glad generator is python3-glad); without it only the PNG signature is checked and
# each pixel-level check is counted as skipped.
#
# CHECKED (64x64 grids, 320x240 images, <= 100 frames: a few seconds on llvmpipe):
#  - headless implicit run with drops: exit 0, the frame-timing line (median, p95), a valid 8-bit
#    RGBA PNG of the asked size that is not one colour and holds no NaN magenta;
#  - the camera frames the whole water plane: every pixel of the image's border is the clear
#    colour (15, 18, 23), in that run, in a portrait 240x320 run and in the window screenshot;
#  - the same run again gives the same pixels (seeded drops); a run without drops, and one with
#    another seed, give different pixels;
#  - explicit at dt 1.5 (r = 2.25 > 1/2) for 100 frames blows up: still exit 0 and a valid PNG,
#    and the blow-up must be visible as the demo's NaN colour (magenta) in the picture;
#  - the window path under xvfb-run (else $DISPLAY; else SKIP): opens, renders, writes its
#    screenshot after --frames (1024x768, the window's size, not one colour, no magenta);
#  - keys and the mouse, sent through the X server (tests/xinput.py: XTEST): 2 (grid 256), Space
#    (pause), P writes the window and the state (256 x 256, still water: one colour); a click on
#    the water, P again: the state holds the drop (more colours); then M, ], [, +, -, Left,
#    Right, N, H, R, F, 1 and Q: the demo exits 0;
#  - no display at all (DISPLAY and WAYLAND_DISPLAY unset, no --headless): falls back to headless
#    by itself, says so, and writes the PNG;
#  - the HUD: in the window screenshot (run with --keys) the HUD's text colour is drawn in the
#    top-left panel and the key overlay's accent colour is there too; a --no-hud --keys run has
#    neither colour anywhere (pnginfo.py counts exact colours in a rectangle);
#  - --help exits 0 and lists the options and the keys; --backend fragment and compute run
#    headless and say which backend ran; --headless without --png says it writes no picture;
#    headless runs print progress lines (TEXLA_DEMO_PROGRESS_S makes them frequent);
#  - usage errors exit 2 with the usage text on stderr, name the option, and write no file: bad
#    --mode, --size 0, --size 3, --size x, --dt 0, --dt -1, --cg 0, --frames -1, --drops -1,
#    --backend gpu, --width 5, a missing value, an unknown option, a stray argument.
B=${1:-build}
W=$B/bin/texla-wave
case $W in /*) ;; *) W=$(pwd)/$W ;; esac
. "$(dirname "$0")/demo_lib.sh"

if [ ! -x "$W" ]; then
    fail "$W is not built (make $W)"
    summary
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/texla-wave-test.XXXXXX") || { fail "mktemp"; summary; }
trap 'rm -rf "$T"' EXIT
TO=""
command -v timeout >/dev/null 2>&1 && TO="timeout 120"

# check_png NAME FILE W H MAGENTA(none|some|any): the PNG checks of one run
check_png() {
    name=$1 file=$2 w=$3 h=$4 mag=$5
    png_info "$file"; rc=$?
    if [ $rc -eq 1 ]; then fail "$name: $file is not a valid PNG: $PERR"; return 1; fi
    pass "$name: PNG signature"
    if [ $rc -eq 2 ]; then skip "$name: pixel checks (no python3 to decode the PNG)"; return 2; fi
    if [ "$PW" = "$w" ] && [ "$PH" = "$h" ] && [ "$PCH" = 4 ]; then pass "$name: decodes as 8-bit RGBA ${w}x$h"
    else fail "$name: size ${PW}x$PH with $PCH channels, want ${w}x$h RGBA"; fi
    case $mag in
    none) if [ "$PCOL" -gt 1 ]; then pass "$name: not one colour ($PCOL colours)"
          else fail "$name: the image is a single colour (blank)"; fi
          if [ "$PMAG" -eq 0 ]; then pass "$name: no NaN-magenta pixels"
          else fail "$name: $PMAG NaN-magenta pixels in a run that should be stable"; fi ;;
    some) if [ "$PMAG" -gt 0 ]; then pass "$name: the blow-up is visible ($PMAG NaN-magenta pixels)"
          else fail "$name: no NaN-magenta pixel: the blown-up state does not show as NaN ($PCOL colour(s) in the image)"; fi ;;
    esac
    return 0
}

G="--size 64 --width 320 --height 240"

# ---- 1. headless implicit run with drops ----
$TO "$W" --headless --frames 60 $G --drops 3 --seed 7 --png "$T/drops.png" > "$T/out1" 2> "$T/err1"
rc=$?
if [ $rc -eq 0 ]; then pass "headless implicit run exits 0"
else fail "headless implicit run exits $rc: $(cat "$T/err1")"; fi
check "headless run prints frame timing (median, p95)" \
    grep -Eq 'frames 64x64 implicit .*median [0-9.]+ ms .*p95 [0-9.]+ ms' "$T/out1"
check "headless run says where it wrote the PNG" grep -Fq "wrote $T/drops.png" "$T/out1"
# border W H: the specs counting the clear colour along the four edges of a W x H image
border() { echo "$BG@0,0,$1,1 $BG@0,$(($2 - 1)),$1,$2 $BG@0,0,1,$2 $BG@$(($1 - 1)),0,$1,$2"; }
# check_framed NAME W H: after a png_info with $(border W H) as its first specs
check_framed() {
    set -- "$1" "$2" "$3" $PCNT
    if [ "$4.$5.$6.$7" = "$2.$2.$3.$3" ]; then pass "$1: the whole water plane is in the picture (its border is background)"
    else fail "$1: the water reaches the image's border (background pixels on the edges: top $4, bottom $5 of $2, left $6, right $7 of $3)"; fi
}
BG=15,18,23
PNG_SPECS=$(border 320 240)
check_png "headless drops" "$T/drops.png" 320 240 none; have=$?
PNG_SPECS=""
SHA_DROPS=$PSHA
[ $have -eq 0 ] && check_framed "headless drops" 320 240
$TO "$W" --headless --frames 20 --size 64 --width 240 --height 320 --drops 2 --png "$T/tall.png" > /dev/null 2>&1
if png_info "$T/tall.png" $(border 240 320); then check_framed "portrait 240x320" 240 320
else fail "portrait run: $PERR"; fi

# ---- 2. determinism and the effect of drops and seeds ----
$TO "$W" --headless --frames 60 $G --drops 3 --seed 7 --png "$T/drops2.png" > /dev/null 2>&1
rc1=$?
$TO "$W" --headless --frames 60 $G --png "$T/nodrops.png" > /dev/null 2>&1
rc2=$?
$TO "$W" --headless --frames 60 $G --drops 3 --seed 8 --png "$T/seed8.png" > /dev/null 2>&1
rc3=$?
if [ $rc1 -ne 0 ] || [ $rc2 -ne 0 ] || [ $rc3 -ne 0 ]; then
    fail "repeat runs exit $rc1 (same), $rc2 (no drops), $rc3 (seed 8)"
elif [ $have -ne 0 ]; then
    skip "pixel comparisons between runs (no decoded pixels)"
else
    png_info "$T/drops2.png" && [ "$PSHA" = "$SHA_DROPS" ]
    check "the same seeded run twice gives the same pixels" [ $? -eq 0 ]
    if png_info "$T/nodrops.png"; then
        check "a run without drops differs from one with drops (pixels)" [ "$PSHA" != "$SHA_DROPS" ]
        check "a run without drops is not blank either ($PCOL colours)" [ "$PCOL" -gt 1 ]
    else
        fail "no-drops PNG: $PERR"
    fi
    if png_info "$T/seed8.png"; then
        check "--seed 8 gives other drops than --seed 7 (pixels)" [ "$PSHA" != "$SHA_DROPS" ]
    else
        fail "seed-8 PNG: $PERR"
    fi
fi

# ---- 3. explicit at a dt past the stability limit ----
$TO "$W" --headless --frames 100 $G --mode explicit --dt 1.5 --drops 2 --seed 7 \
    --png "$T/explicit.png" > "$T/out3" 2> "$T/err3"
rc=$?
if [ $rc -eq 0 ]; then pass "explicit dt 1.5 (r 2.25 > 1/2) still exits 0"
else fail "explicit dt 1.5 exits $rc: $(cat "$T/err3")"; fi
check "explicit run reports explicit mode" grep -q 'explicit dt 1.500' "$T/out3"
check_png "explicit blow-up" "$T/explicit.png" 320 240 some

# ---- 4. the window path ----
WIN=""
if command -v xvfb-run >/dev/null 2>&1; then
    WIN="xvfb-run -a -s \"-screen 0 1280x1024x24\""
    run_win() { $TO xvfb-run -a -s "-screen 0 1280x1024x24" "$@"; }
elif [ -n "$DISPLAY" ]; then
    WIN="\$DISPLAY"
    run_win() { $TO "$@"; }
fi
if [ -z "$WIN" ]; then
    skip "windowed run: no xvfb-run and no DISPLAY"
else
    run_win "$W" --size 64 --frames 30 --drops 2 --seed 7 --keys --png "$T/window.png" > "$T/out4" 2> "$T/err4"
    rc=$?
    if [ $rc -eq 0 ]; then pass "windowed run ($WIN) exits 0"
    else fail "windowed run ($WIN) exits $rc: $(cat "$T/err4")"; fi
    check "windowed run took its screenshot in the window (not the headless fallback)" \
        grep -q 'window screenshot after 30 frames' "$T/out4"
    if [ "$WIN" = "\$DISPLAY" ]; then # a window manager may resize it: size not checked
        PNG_SPECS="$HUD_TEXT@0,0,720,170 $HUD_ACCENT@0,0,4096,4096"
        png_info "$T/window.png"; check_png "window" "$T/window.png" "$PW" "$PH" none
        PNG_SPECS=""
    else
        # the HUD: its text in the top-left panel, the key overlay (--keys) in the accent colour
        PNG_SPECS="$HUD_TEXT@0,0,720,170 $HUD_ACCENT@0,0,4096,4096 $(border 1024 768)"
        check_png "window" "$T/window.png" 1024 768 none
        PNG_SPECS=""
        cnt=$PCNT
        PCNT=${cnt#* * }
        [ -n "$PY" ] && check_framed "window" 1024 768
        PCNT=$cnt
    fi
    if [ -n "$PY" ]; then
        set -- $PCNT
        check "window: the HUD's text is drawn top left ($1 text-colour pixels > 1000)" [ "${1:-0}" -gt 1000 ]
        check "window: --keys shows the key overlay ($2 accent-colour pixels > 500)" [ "${2:-0}" -gt 500 ]
        run_win "$W" --size 64 --frames 30 --drops 2 --seed 7 --keys --no-hud --png "$T/nohud.png" > /dev/null 2>&1
        png_info "$T/nohud.png" "$HUD_TEXT@0,0,4096,4096" "$HUD_ACCENT@0,0,4096,4096"
        set -- $PCNT
        check "window --no-hud: no pixel of the HUD's colours (text $1, accent $2)" [ "${1:-x},${2:-x}" = "0,0" ]
    else
        skip "window: HUD pixel checks (no python3)"
    fi
fi

# ---- 4b. keys and a click through the X server (the demo's callbacks) ----
if [ -z "$WIN" ] || [ -z "$PY" ]; then
    skip "keys and mouse: no display or no python3"
else
    mkdir -p "$T/keys"
    (cd "$T/keys" && run_win sh -c '"$0" --size 64 > out 2> err & pid=$!
        python3 "$1" wait:texla-wave key:2 key:space key:P sleep:3 move:512,384 click sleep:1 \
            key:P key:M key:bracketright key:bracketleft key:equal key:minus key:Left key:Right \
            key:N key:H key:R key:F key:1 sleep:1 key:q > xin 2>&1 || kill $pid
        wait $pid' "$W" "$LIB_DIR/xinput.py")
    rc=$?
    if [ $rc -eq 0 ] && [ ! -s "$T/keys/xin" ]; then pass "keys and mouse: the demo took them and quit on Q (exit 0)"
    else fail "keys and mouse: exit $rc: $(cat "$T/keys/xin" "$T/keys/err" 2>/dev/null | head -c 300)"; fi
    check "P wrote the window (texla-wave-001.png, -002.png)" \
        test -f "$T/keys/texla-wave-001.png" -a -f "$T/keys/texla-wave-002.png"
    if png_info "$T/keys/texla-wave-state-001.png"; then
        check "key 2, then P: the state is 256 x 256 still water ($PCOL colour)" [ "$PW.$PH.$PCOL" = "256.256.1" ]
    else fail "the first state PNG: $PERR"; fi
    if png_info "$T/keys/texla-wave-state-002.png"; then
        check "a click on the water drops into it (the state after it: $PCOL colours)" [ "$PCOL" -gt 10 ]
    else fail "the second state PNG: $PERR"; fi
fi

# ---- 5. no display: falls back to headless by itself ----
(unset DISPLAY WAYLAND_DISPLAY; $TO "$W" --size 64 --frames 10 --png "$T/nodisplay.png") \
    > "$T/out5" 2> "$T/err5"
rc=$?
if [ $rc -eq 0 ]; then pass "no display: exits 0"
else fail "no display: exits $rc: $(cat "$T/err5")"; fi
check "no display: says it runs headless" grep -q 'running headless' "$T/out5"
check_png "no display" "$T/nodisplay.png" 800 600 none

# ---- 6. help, backends, messages, progress ----
check_help texla-wave "$W" --size --mode --dt --cg --backend --headless --frames --png --drops \
    --seed --no-hud --keys Space pause R reset M mode "+ / -" "] / [" "1 .. 5" P H Esc
for be in fragment compute; do
    $TO "$W" --headless --frames 3 $G --backend $be > "$T/out7" 2> "$T/err7"
    rc=$?
    if [ $rc -eq 0 ] && grep -q "backend $be" "$T/out7"; then pass "--backend $be runs and says so"
    else fail "--backend $be: exit $rc, $(cat "$T/out7" "$T/err7" | head -c 300)"; fi
done
check "--headless without --png says it writes no picture" grep -q 'printing frame times only' "$T/out7"
TEXLA_DEMO_PROGRESS_S=0.01 $TO "$W" --headless --frames 40 $G > /dev/null 2> "$T/err8"
check "headless progress lines ($(grep -c 'frame [0-9]*/40' "$T/err8") at 0.01 s intervals)" \
    grep -Eq '^texla-wave: frame [0-9]+/40, [0-9.]+ fps, about [0-9]+ s left' "$T/err8"

# ---- 7. usage errors ----
usage_case() { # usage_case DESCRIPTION OPTION-NAMED ARGS...
    d=$1 o=$2; shift 2
    rm -f "$T/usage.png"
    $TO "$W" --headless --frames 2 "$@" --png "$T/usage.png" > "$T/out6" 2> "$T/err6"
    rc=$?
    if [ $rc -eq 2 ] && grep -q '^usage:' "$T/err6" && grep -q -- "$o" "$T/err6" && [ ! -e "$T/usage.png" ]; then
        pass "usage error exits 2 and names $o: $d"
    else
        fail "usage error $d: exit $rc (want 2), stderr: $(head -c 200 "$T/err6"), png written: $([ -e "$T/usage.png" ] && echo yes || echo no)"
    fi
}
usage_case "--mode sideways" --mode --mode sideways
usage_case "--size 0" --size --size 0
usage_case "--size 3" --size --size 3
usage_case "--size x" --size --size x
usage_case "--dt 0" --dt --dt 0
usage_case "--dt -1" --dt --dt -1
usage_case "--cg 0" --cg --cg 0
usage_case "--frames -1" --frames --frames -1
usage_case "--drops -1" --drops --drops -1
usage_case "--backend gpu" --backend --backend gpu
usage_case "--width 5" --width --width 5
usage_case "unknown option --bogus" --bogus --bogus
usage_case "a stray argument" stray stray
# a missing value: the option is last (so nothing follows it, not even --png)
rm -f "$T/usage.png"
(cd "$T" && $TO "$W" --headless --frames 2 --size 64 --mode) > "$T/out6" 2> "$T/err6"
rc=$?
if [ $rc -eq 2 ] && grep -q '^usage:' "$T/err6" && grep -q -- --mode "$T/err6" && [ ! -e "$T/wave.png" ]; then
    pass "usage error exits 2 and names --mode: --mode without a value"
else
    fail "usage error --mode without a value: exit $rc (want 2), stderr: $(head -c 200 "$T/err6")"
fi

summary
