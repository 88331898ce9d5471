#!/bin/sh
# Runs every test binary and prints their summed result as the last line:
#   N passed, M failed, K skipped
# A binary that crashes counts as one failure. The window test needs an X display: with none,
# it runs under xvfb-run; without xvfb-run it is counted as skipped.
B=${1:-build}
P=0; F=0; S=0
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
    sh tests/test_wave.sh "$B" 2>&1 | tee "$log"; add "$log" test_wave.sh
fi
echo "== texla-cubes (tests/test_cubes.sh)"
if [ -f tests/test_cubes.sh ]; then
    sh tests/test_cubes.sh "$B" 2>&1 | tee "$log"; add "$log" test_cubes.sh
fi
echo "== install, pkg-config and CMake consumers (tests/test_install.sh)"
if [ -f tests/test_install.sh ]; then
    sh tests/test_install.sh "$B" 2>&1 | tee "$log"; add "$log" test_install.sh
fi
echo "== total"
echo "$P passed, $F failed, $S skipped"
[ "$F" -eq 0 ]
