#!/bin/sh
# tests/test_files.sh BUILD_DIR - the texla program on special files (issue 13's classes as a
# user meets them): `load "/dev/zero"` and other devices, directories and pipes of endless
# data are answered at once with FILE:LINE:COLUMN: error: and exit status 1; `save` and `png`
# at a FIFO or a device are refused and leave it as it was; through a symbolic link they write
# the file it leads to and keep the link; the demos' --png frames likewise (refused before the
# run starts). Every run has a time limit (timeout 20 s) and must
# end within 2 s of the context being made (the time texla run takes for a trivial script is
# measured first). Ends with "N passed, M failed, K skipped".
B=${1:-build}
ROOT=$(pwd)
case $B in /*) T="$B/bin/texla" ;; *) T="$ROOT/$B/bin/texla" ;; esac
P=0 F=0 S=0
pass() { P=$((P + 1)); echo "ok   $1"; }
fail() { F=$((F + 1)); echo "FAIL $1"; [ -z "$2" ] || printf '%s\n' "$2" | sed 's/^/     /'; }
skip() { S=$((S + 1)); echo "SKIP $1"; }
summary() { echo "$P passed, $F failed, $S skipped"; }
[ -x "$T" ] || { fail "texla binary: $T is missing"; summary; exit 1; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/texla-files.XXXXXX") || { fail "mktemp -d"; summary; exit 1; }
trap 'cd /; rm -rf "$TMP"' EXIT
cd "$TMP" || exit 1
command -v timeout >/dev/null 2>&1 || { skip "no timeout(1)"; summary; exit 0; }

ms() { echo $(($(date +%s%N) / 1000000)); }
# run SCRIPT: rc, err, took (milliseconds)
run() {
    printf '%s\n' "$1" > s.tx
    t0=$(ms)
    timeout 20 "$T" run s.tx > out 2> err
    rc=$?
    took=$(($(ms) - t0))
}
run 'A = ones(2, 2)'
base=$took # making a context and running a trivial script
# expect WHAT SCRIPT RC MESSAGE: exit status, message, at most 2 s more than the trivial run
expect() {
    run "$2"
    if [ "$rc" -eq 124 ]; then fail "$1: killed after 20 s"; return; fi
    if [ "$rc" -ne "$3" ]; then fail "$1: exit $rc, expected $3" "$(cat err)"; return; fi
    if [ -n "$4" ] && ! grep -q -- "$4" err; then fail "$1: no \"$4\" in the message" "$(cat err)"; return; fi
    if [ $((took - base)) -gt 2000 ]; then fail "$1: took $took ms (a trivial run: $base ms)"; return; fi
    pass "$1 ($took ms)"
}

expect 'load "/dev/zero"' 'A = load "/dev/zero"' 1 's.tx:1:5: error: .*/dev/zero: is a character device'
ln -s /dev/urandom u.png
expect 'load a device as a PNG' 'A = load "u.png"' 1 'u.png: is a character device'
expect 'load a directory' 'A = load "/tmp"' 1 'is a directory'
mkfifo zeros.mtx
( timeout 20 cat /dev/zero > zeros.mtx 2>/dev/null & )
expect 'load a pipe of NUL bytes' 'A = load "zeros.mtx"' 1 'zeros.mtx:1: NUL byte'
mkfifo fifo.mtx
expect 'save at a FIFO' 'save ones(2, 2) "fifo.mtx"' 1 'is a FIFO'
[ -p fifo.mtx ] && pass 'the FIFO is still a FIFO' || fail 'the FIFO was replaced'
expect 'png at a FIFO' 'png ones(2, 2) "fifo.mtx"' 1 'is a FIFO'
# a character device: as root a node of our own (a regression must not replace the system's
# /dev/null), else /dev/null itself, which a non-root writer cannot harm
dev=/dev/null
if [ "$(id -u)" = 0 ]; then dev=$TMP/null; mknod "$dev" c 1 3 2>/dev/null || dev=""; fi
if [ -n "$dev" ]; then
    expect "save at a character device ($dev)" "save ones(2, 2) \"$dev\"" 1 'is a character device'
    [ -c "$dev" ] && pass "$dev is still a device" || fail "$dev was replaced"
else
    skip 'save at a character device: mknod failed (as root)'
fi
mkdir -p real
echo old > real/t.mtx
ln -s real/t.mtx link.mtx
expect 'save through a link' 'save ones(2, 3) "link.mtx"' 0 ''
if [ -L link.mtx ] && grep -q '^2 3$' real/t.mtx; then pass 'the link kept, its file written'
else fail 'the link was replaced or its file not written' "$(ls -l link.mtx real; cat real/t.mtx)"; fi
# the demos' frames (--png) follow the same rule, and a refused path is said before the run
for demo in texla-cubes texla-wave; do
    D="$ROOT/$B/bin/$demo"
    case $B in /*) D="$B/bin/$demo" ;; esac
    if [ ! -x "$D" ]; then skip "$demo: not built"; continue; fi
    t0=$(ms)
    timeout 20 "$D" --headless --frames 2 --png fifo.mtx > out 2> err
    rc=$? took=$(($(ms) - t0))
    if [ "$rc" -eq 1 ] && grep -q 'fifo.mtx: it is a FIFO; not replaced' err && [ -p fifo.mtx ] &&
       [ "$took" -lt 2000 ]; then pass "$demo --png at a FIFO: refused at once ($took ms), the FIFO kept"
    else fail "$demo --png at a FIFO: exit $rc in $took ms" "$(cat err; ls -l fifo.mtx)"; fi
    if [ -n "$dev" ]; then
        timeout 20 "$D" --headless --frames 2 --png "$dev" > out 2> err
        rc=$?
        if [ "$rc" -eq 1 ] && grep -q 'is a character device; not replaced' err && [ -c "$dev" ]; then
            pass "$demo --png at a character device: refused, the device kept"
        else fail "$demo --png at a character device: exit $rc" "$(cat err; ls -l "$dev")"; fi
    fi
    rm -f real/f.png
    ln -sf real/f.png "frame-$demo.png"
    timeout 60 "$D" --headless --frames 2 --width 64 --height 40 --png "frame-$demo.png" > out 2> err
    rc=$?
    if [ "$rc" -eq 0 ] && [ -L "frame-$demo.png" ] && [ -s real/f.png ] &&
       [ "$(head -c 4 real/f.png | od -An -c | tr -d ' ')" = "211PNG" ]; then
        pass "$demo --png through a link: the link kept, its file written"
    else fail "$demo --png through a link: exit $rc" "$(cat err; ls -l "frame-$demo.png" real)"; fi
done
summary
[ "$F" -eq 0 ]
