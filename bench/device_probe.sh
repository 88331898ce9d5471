#!/bin/sh
# One H100 call for the reductions' walks and the cubes' solver taken apart: texla-bench's
# kernels section (--quick: every "reduce" variant pinned on the dots) beside peers.py reduce,
# test-texla lcp_op and texla-bench's contact section,
# then texla-cubes with the sparse solver at 240, 1000 and 4000 cubes, once as the benchmark runs
# it and once with TEXLA_CUBES_SPLIT=1 (the solve timed in parts). Run from the repository root
# with build/bin and .gl carried; everything lands under $OUT.
#   CUBES="240 1000 4000"   cube counts
for f in .gl/*.deb; do dpkg -x "$f" / ; done; ldconfig
OUT=${OUT:-/tmp/texla-device}
CUBES=${CUBES:-"240 1000 4000"}
mkdir -p "$OUT"
export XDG_CACHE_HOME=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,clocks.mem --format=csv,noheader
t0=$(date +%s)
timeout 120 ./build/bin/test-texla lcp_op > "$OUT/tests.txt" 2>&1
echo "tests rc=$? at $(( $(date +%s) - t0 )) s: $(grep -c '^FAIL' "$OUT/tests.txt") FAIL lines; $(tail -n 1 "$OUT/tests.txt")"
grep '^FAIL' "$OUT/tests.txt" | head -n 5 | cut -c1-300
timeout 120 ./build/bin/texla-bench --backend compute --sections contact > "$OUT/contact.txt" 2>&1
echo "contact rc=$? at $(( $(date +%s) - t0 )) s"
timeout 200 ./build/bin/texla-bench --backend compute --sections kernels --quick > "$OUT/kernels.txt" 2>&1
echo "kernels rc=$? at $(( $(date +%s) - t0 )) s"
timeout 100 python3 bench/peers.py reduce > "$OUT/peers_reduce.txt" 2>&1
echo "peers rc=$? at $(( $(date +%s) - t0 )) s"
for n in $CUBES; do
  fr=120; [ "$n" -ge 4000 ] && fr=60
  timeout 60 ./build/bin/texla-cubes --headless --frames $fr --cubes $n --solver sparse --shoot $((fr / 4)) > "$OUT/cubes_$n.txt" 2>&1
  TEXLA_CUBES_SPLIT=1 timeout 60 ./build/bin/texla-cubes --headless --frames $fr --cubes $n --solver sparse --shoot $((fr / 4)) > "$OUT/split_$n.txt" 2>&1
  echo "cubes $n at $(( $(date +%s) - t0 )) s"
done
nvidia-smi --query-gpu=pstate,clocks.sm,clocks.mem --format=csv,noheader
grep -A12 '## contact' "$OUT/contact.txt" | grep -v CEILING | cut -c1-170
grep -i 'dot\|reduc' "$OUT/kernels.txt" | cut -c1-200
grep -i 'dot' "$OUT/peers_reduce.txt" | cut -c1-200
for n in $CUBES; do grep 'summary' "$OUT/cubes_$n.txt" | cut -c1-260; grep 'solver\|CPU' "$OUT/split_$n.txt" | cut -c1-120; done
exit 0
