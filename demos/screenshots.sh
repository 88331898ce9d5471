#!/bin/sh
# screenshots.sh - the README's screenshots of the demos, HUD included, taken in windows under
# Xvfb (else $DISPLAY) on this machine's GL. Run from the repository root after `make`:
#   sh demos/screenshots.sh [BUILD_DIR]
B=${1:-build}
if command -v xvfb-run >/dev/null 2>&1; then run() { xvfb-run -a -s "-screen 0 1280x1024x24" "$@"; }
else run() { "$@"; }; fi
run "$B/bin/texla-wave" --size 256 --drops 5 --seed 3 --frames 90 --width 800 --height 500 \
    --png demos/wave/screenshot.png &&
run "$B/bin/texla-cubes" --cubes 60 --shoot 10 --frames 70 --width 800 --height 500 \
    --png demos/cubes/screenshot.png
