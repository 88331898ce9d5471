#!/bin/sh
# The H200's Xid 31 (a GPU MMU fault at address 0, GPCCLIENT_PE, a virtual read; found in the
# thirty-fifth session): test-texla's sparse suite on the compute backend faults the context
# during the bad-input tests, and the products after it read back stale results. Each part
# of those tests runs between two NaN/Inf tests in a process of its own, the kernel log's Xid
# lines counted around it. Carry build/bin and .gl.
#   sh bench/device_fault.sh [parts...]   (default: bad_inputs empty_matrix ssbo_limit)
for f in .gl/*.deb; do dpkg -x "$f" / ; done; ldconfig
xids() { dmesg 2>/dev/null | grep -c "Xid"; }
for part in ${*:-bad_inputs empty_matrix ssbo_limit}; do
    before=$(xids)
    TEXLA_TEST_ONLY="nan,$part,nan" TEXLA_TEST_BACKEND=compute timeout 120 \
        ./build/bin/test-texla sparse > "${OUT:-/tmp}/fault_$part.log" 2>&1
    echo "$part: $(tail -1 "${OUT:-/tmp}/fault_$part.log"); Xid lines $before -> $(xids)"
done
dmesg 2>/dev/null | grep "Xid" | tail -3 | cut -c1-220
