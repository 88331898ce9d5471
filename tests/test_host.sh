#!/bin/sh
# test_host.sh - the host-mode example (demos/host) end to end. Run from the repository root:
#   sh tests/test_host.sh [BUILD_DIR]     (default build; uses BUILD_DIR/bin/texla-host)
# Last line: "N passed, M failed, K skipped" (tests/run.sh adds it up).
#
# CHECKED, under xvfb-run (else $DISPLAY; else SKIP): texla-host runs 10 frames in its window and
# writes what the window shows (PPM); exit 0, 512x512, and every one of the 128 x 128 elements
# of C = A B (drawn as 4x4 pixel blocks by the app's own shader) has the colour the example's
# formulas give for the last frame, computed here in float64: red 0.5 + 0.5 v, blue 0.5 - 0.5 v
# within 3 levels of 255 (float32 on the GPU, 8-bit window). This checks texla's product on the
# app's context, the app reading texla's texture with the 4x1 packing, and the orientation
# (C(i, j) with t != 0 is neither symmetric nor mirror-symmetric, so a flipped or transposed
# picture fails).
B=${1:-build}
X=$B/bin/texla-host
case $X in /*) ;; *) X=$(pwd)/$X ;; esac
. "$(dirname "$0")/demo_lib.sh"
if [ ! -x "$X" ]; then fail "$X is not built"; summary; fi
T=$(mktemp -d "${TMPDIR:-/tmp}/texla-host-test.XXXXXX") || { fail "mktemp"; summary; }
trap 'rm -rf "$T"' EXIT
export XDG_CACHE_HOME="$T/cache"
TO=""
command -v timeout >/dev/null 2>&1 && TO="timeout 120"
if command -v xvfb-run >/dev/null 2>&1; then
    run_win() { $TO xvfb-run -a -s "-screen 0 640x640x24" "$@"; }
elif [ -n "$DISPLAY" ]; then
    run_win() { $TO "$@"; }
else
    skip "texla-host: no xvfb-run and no DISPLAY"
    summary
fi

run_win "$X" 10 "$T/shot.ppm" > "$T/out" 2>&1
rc=$?
if [ $rc -eq 0 ]; then pass "texla-host 10 frames exits 0"
else fail "texla-host exits $rc: $(head -c 300 "$T/out")"; summary; fi
if [ -z "$PY" ]; then skip "texla-host: pixel check (no python3)"; summary; fi
res=$($PY - "$T/shot.ppm" <<'EOF'
import math, sys
d = open(sys.argv[1], 'rb').read()
head = d.split(b'\n', 3)
if head[0] != b'P6': print('ERR not a binary PPM'); sys.exit()
w, h = map(int, head[1].split()); px = head[3]
if (w, h) != (512, 512) or len(px) != w * h * 3: print('ERR size %dx%d' % (w, h)); sys.exit()
N, K, t = 128, 4, 0.03 * 9  # the last of 10 frames
worst = 0; bad = 0
for i in range(N):
    for j in range(N):
        v = sum(math.cos(2 * math.pi * (k + 1) * i / N) / K *
                math.cos(2 * math.pi * (k + 1) * j / N + t * (k + 1)) for k in range(K))
        x, y = 4 * j + 2, 4 * i + 2  # the centre of the element's 4x4 block; row 0 on top
        r, g, b = px[3 * (y * w + x):3 * (y * w + x) + 3]
        e = max(abs(r - 255 * (0.5 + 0.5 * v)), abs(b - 255 * (0.5 - 0.5 * v)))
        worst = max(worst, e); bad += e > 3
print('OK %d %.2f' % (bad, worst))
EOF
)
case $res in
OK\ 0\ *) pass "every element of C is drawn with its float64 colour (worst ${res##* } levels)" ;;
OK*) set -- $res; fail "$2 of 16384 elements off by more than 3 levels (worst $3): texla's product or its layout in the app's shader" ;;
*) fail "texla-host screenshot: $res" ;;
esac
summary
