#!/bin/sh
# One H100 call for the sparse engine: texla's sparse suite on this GPU (its subgroup paths),
# then the sparse suite's matrices (bench/spgen.py --only $SP) tuned and timed by texla
# (texla-bench spsuite, every candidate's time in $OUT/texla_spsuite_trials.txt) and cuSPARSE
# timed on the same files in the same call (peers.py spsuite); the GPU's clocks during texla's
# part every 100 ms in $OUT/clocks.csv.
# Run from the repository root with build/bin and .gl carried; everything lands under $OUT.
#   SP="band,rmat,circuit,fem3x3,complex3x3"   the matrices (spgen.py --only)
#   SP_BUDGET=S                                 the tuner's budget (< 0: every candidate)
#   SP_TMO=300                                  texla-bench's time limit in s (peers.py: half)
#   TESTS=0                                     skip the test suite (TESTS_TMO: its limit, 150 s)
#   SP_ALL=1                                    every candidate the tuner knows (with SP_BUDGET=-1)
#   SP_MERGE=1                                  A x by the merge path pinned at several sizes
#   SP_RETUNE=N                                 each matrix tuned N more times ("retune k" lines)
#   SP_PIN="csr row xbuf wg=128;sell row C=32 rowsort"  A x pinned to each variant (the
#                                               candidate tables' words), the GPU's time of each
for f in .gl/*.deb; do dpkg -x "$f" / ; done; ldconfig
OUT=${OUT:-/tmp/texla-device}
SP=${SP:-band,rmat,circuit,fem3x3,complex3x3}
D=/tmp/sps_$(echo "$SP" | tr , _) # one folder per set: spgen.py --only writes only those
mkdir -p "$OUT"
export XDG_CACHE_HOME=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,clocks.mem --format=csv,noheader
t0=$(date +%s)
(python3 bench/spgen.py "$D" --scale 1.0 --only "$SP" > /tmp/spgen.log 2>&1) &
if [ "${TESTS:-1}" != 0 ]; then
    timeout ${TESTS_TMO:-150} ./build/bin/test-texla sparse > "$OUT/tests.txt" 2>&1
    echo "tests rc=$? at $(( $(date +%s) - t0 )) s: $(grep -c '^FAIL' "$OUT/tests.txt") FAIL lines; $(tail -n 1 "$OUT/tests.txt")"
    grep '^FAIL' "$OUT/tests.txt" | head -n 5 | cut -c1-300
fi
wait
echo "spgen done at $(( $(date +%s) - t0 )) s"
# the GPU's clocks every 100 ms while texla tunes and times (to read beside the trials file's
# times: a final round that read every finalist slow, BENCHMARKS thirty-third session)
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,utilization.gpu \
    --format=csv,noheader -lms 100 > "$OUT/clocks.csv" 2>&1 &
clk=$!
timeout ${SP_TMO:-300} ./build/bin/texla-bench --sections spsuite --spdir "$D" > "$OUT/texla_sp.txt" 2>&1
echo "spsuite rc=$? at $(( $(date +%s) - t0 )) s"
kill $clk 2>/dev/null
timeout $(( ${SP_TMO:-300} / 2 )) python3 bench/peers.py spsuite --spdir "$D" > "$OUT/peers_sp.txt" 2>&1
echo "peers rc=$? at $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=pstate,clocks.sm,clocks.mem --format=csv,noheader
grep 'tuned in\|timing:\| retune ' "$OUT/texla_sp.txt" | cut -c1-260
grep ' pin ' "$OUT/texla_sp.txt" | cut -c1-200
grep '^| [a-z]' "$OUT/texla_sp.txt" | cut -c1-150
tail -c 2500 "$OUT/peers_sp.txt"
