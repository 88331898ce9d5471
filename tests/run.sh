#!/bin/sh
# Runs every test binary and prints their summed result as the last line:
#   N passed, M failed, K skipped
# A binary that crashes counts as one failure. The window test needs an X display: with none,
# it runs under xvfb-run; without xvfb-run it is counted as skipped.
B=${1:-build}
P=0; F=0; S=0
# sanitized builds (SANITIZE=address,undefined): leaks inside the GL driver are not texla's
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
# ... except in the demos' end-to-end runs: their windowed runs (GLFW, GLX under Xvfb) leak
# inside window-system libraries that are unloaded before exit, where LSan cannot name them
# for a suppression. texla's own allocations stay leak-checked (test-texla runs the demos'
# simulation code, the CLI tests the library end to end).
DEMO_ASAN="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
add() { # parse "N passed, M failed, K skipped" from a log
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
    if [ -z "$line" ]; then F=$((F + 1)); echo "texla tests: $2 ended without a summary (crash?)"; return; fi
    set -- $line
    P=$((P + $1)); F=$((F + $3)); S=$((S + ${5:-0}))
}
log=$(mktemp); trap 'rm -f "$log"' EXIT
echo "== test-texla (every suite on every backend, one process)"
"$B/bin/test-texla" 2>&1 | tee "$log"
add "$log" test-texla
echo "== layering of the library (tests/check_layers.py)"
python3 tests/check_layers.py "$B" 2>&1 | tee "$log"
add "$log" check_layers.py
echo "== test-window"
if [ -n "$DISPLAY" ]; then
    "$B/bin/test-window" 2>&1 | tee "$log"; add "$log" test-window
elif command -v xvfb-run >/dev/null 2>&1; then
    xvfb-run -a -s "-screen 0 640x480x24" "$B/bin/test-window" 2>&1 | tee "$log"; add "$log" test-window
else
    echo "SKIP test-window: no display and no xvfb-run"; S=$((S + 1))
fi
echo "== texla-host, the host-mode example (tests/test_host.sh)"
if [ -f tests/test_host.sh ]; then
    sh tests/test_host.sh "$B" 2>&1 | tee "$log"; add "$log" test_host.sh
fi
echo "== texla CLI (tests/test_cli.sh)"
if [ -f tests/test_cli.sh ]; then
    sh tests/test_cli.sh "$B" 2>&1 | tee "$log"; add "$log" test_cli.sh
fi
echo "== texla-wave (tests/test_wave.sh)"
if [ -f tests/test_wave.sh ]; then
    ASAN_OPTIONS=$DEMO_ASAN sh tests/test_wave.sh "$B" 2>&1 | tee "$log"; add "$log" test_wave.sh
fi
echo "== texla-cubes (tests/test_cubes.sh)"
if [ -f tests/test_cubes.sh ]; then
    ASAN_OPTIONS=$DEMO_ASAN sh tests/test_cubes.sh "$B" 2>&1 | tee "$log"; add "$log" test_cubes.sh
fi
echo "== library files on their own (build/bin/test-units: handle table, tuning cache writer)"
"$B/bin/test-units" 2>&1 | tee "$log"; add "$log" test-units
echo "== the fuzz harnesses still compile against today's API (cc -fsyntax-only; make fuzz runs them)"
fp=0; ff=0
for f in tests/fuzz/fuzz_*.c; do
    if ${CC:-cc} -fsyntax-only -std=c11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -Iinclude -Isrc \
        -I"$B/glad/include" "$f" 2> "$log.cc"; then
        fp=$((fp + 1)); echo "ok   $f compiles"
    else
        ff=$((ff + 1)); echo "FAIL $f does not compile:"; head -n 5 "$log.cc"
    fi
done
rm -f "$log.cc"
echo "$fp passed, $ff failed, 0 skipped" | tee "$log"; add "$log" fuzz-harnesses
echo "== every call that takes a handle is tried with another context's (tests/check_handle_calls.py)"
python3 tests/check_handle_calls.py 2>&1 | tee "$log"; add "$log" check_handle_calls.py
echo "== texla CLI on special files (tests/test_files.sh)"
sh tests/test_files.sh "$B" 2>&1 | tee "$log"; add "$log" test_files.sh
echo "== install, pkg-config and CMake consumers (tests/test_install.sh)"
if [ -f tests/test_install.sh ]; then
    sh tests/test_install.sh "$B" 2>&1 | tee "$log"; add "$log" test_install.sh
fi
echo "== total"
echo "$P passed, $F failed, $S skipped"
[ "$F" -eq 0 ]
