#!/bin/sh
# The H200's Xid 31 (a GPU MMU fault at address 0, GPCCLIENT_PE, a virtual read; found in the
# thirty-fifth session) came with stale results after test-texla's bad-input tests; those were
# the storage buffer pool's (CHANGELOG, Fixed, 2026-12-02), the Xid not seen since. Each part of
# those tests runs between two NaN/Inf tests in a process of its own, the kernel log's Xid
# lines counted around it. Carry build/bin and .gl.
#   sh bench/device_fault.sh [parts...]   (default: bad_inputs empty_matrix ssbo_limit)
#   TRACE=1 sh bench/device_fault.sh part,part,...   one process, TEXLA_TEST_TRACE=1: every
#     check waits for the GPU and marks the kernel log, which is printed around the first Xid
#     (waiting at every check also hid the pool's race: a trace can pass where a run fails)
for f in .gl/*.deb; do dpkg -x "$f" / ; done; ldconfig
xids() { dmesg 2>/dev/null | grep -c "Xid"; }
if [ -n "$TRACE" ]; then
    echo on > /proc/sys/kernel/printk_devkmsg 2>/dev/null # no rate limit on the marks
    before=$(xids)
    TEXLA_TEST_TRACE=1 TEXLA_TEST_ONLY="$1" TEXLA_TEST_BACKEND=compute timeout 300 \
        ./build/bin/test-texla sparse > "${OUT:-/tmp}/trace.log" 2>&1
    echo "$1: $(tail -1 "${OUT:-/tmp}/trace.log"); Xid lines $before -> $(xids)"
    dmesg > "${OUT:-/tmp}/dmesg.log" 2>&1
    grep -n "Xid" "${OUT:-/tmp}/dmesg.log" | head -3 | cut -c1-240
    first=$(grep -n "Xid" "${OUT:-/tmp}/dmesg.log" | head -1 | cut -d: -f1)
    [ -n "$first" ] && sed -n "$((first > 12 ? first - 12 : 1)),$((first + 3))p" \
        "${OUT:-/tmp}/dmesg.log" | cut -c1-200
    grep -c texla-trace "${OUT:-/tmp}/dmesg.log"
    exit 0
fi
for part in ${*:-bad_inputs empty_matrix ssbo_limit}; do
    before=$(xids)
    TEXLA_TEST_ONLY="nan,$part,nan" TEXLA_TEST_BACKEND=compute timeout 120 \
        ./build/bin/test-texla sparse > "${OUT:-/tmp}/fault_$part.log" 2>&1
    echo "$part: $(tail -1 "${OUT:-/tmp}/fault_$part.log"); Xid lines $before -> $(xids)"
done
dmesg 2>/dev/null | grep "Xid" | tail -3 | cut -c1-220
