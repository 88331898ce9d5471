#!/bin/sh
# One H100 call for what changed in a round, each part on its own (a part that fails leaves the
# others' numbers): the texla suites that run the new kernels (on this GPU's subgroup paths),
# texla-bench's contact section (a cubes-like matrix-free LCP, its pieces and the fused step),
# the falling cubes (bench/cubes_bench.sh), and the sparse suite's skewed matrices tuned by
# texla beside cuSPARSE on the same files (bench/spgen.py, texla-bench spsuite, peers.py).
# Run from the repository root with build/bin and .gl carried; everything lands under $OUT.
#   SP="rmat,circuit,band"   the sparse suite's matrices (spgen.py --only)
#   CUBES="240 1000 4000"    cube counts for the sparse solver; CUBES2="60 240" for all three
for f in .gl/*.deb; do dpkg -x "$f" / ; done; ldconfig
OUT=${OUT:-/tmp/texla-device}
SP=${SP:-rmat,circuit,band}
CUBES=${CUBES:-"240 1000 4000"}
CUBES2=${CUBES2:-"60 240"}
mkdir -p "$OUT"
export XDG_CACHE_HOME=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,clocks.mem --format=csv,noheader
t0=$(date +%s)
(python3 bench/spgen.py /tmp/sps --scale 1.0 --only "$SP" > /tmp/spgen.log 2>&1) &
timeout 90 ./build/bin/test-texla sparse lcp_op > "$OUT/tests.txt" 2>&1
echo "tests rc=$? at $(( $(date +%s) - t0 )) s: $(grep -c '^FAIL' "$OUT/tests.txt") FAIL lines; $(tail -n 1 "$OUT/tests.txt")"
grep '^FAIL' "$OUT/tests.txt" | head -n 5 | cut -c1-300
timeout 120 ./build/bin/texla-bench --backend compute --sections contact > "$OUT/contact.txt" 2>&1
echo "contact rc=$? at $(( $(date +%s) - t0 )) s"
{
SIZES="$CUBES" SOLVERS="sparse" SHOTS="shot" FRAMES=120 TMO=60 OUT=/tmp/cb1 sh bench/cubes_bench.sh
SIZES="$CUBES2" SOLVERS="dense islands" SHOTS="shot" FRAMES=60 TMO=60 OUT=/tmp/cb2 sh bench/cubes_bench.sh
} > "$OUT/cubes.txt" 2>&1
echo "cubes done at $(( $(date +%s) - t0 )) s"
wait
timeout 200 ./build/bin/texla-bench --sections spsuite --spdir /tmp/sps > "$OUT/texla_sp.txt" 2>&1
echo "spsuite rc=$? at $(( $(date +%s) - t0 )) s"
timeout 150 python3 bench/peers.py spsuite --spdir /tmp/sps > "$OUT/peers_sp.txt" 2>&1
echo "peers rc=$? at $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=pstate,clocks.sm,clocks.mem --format=csv,noheader
grep -A12 '## contact' "$OUT/contact.txt" | grep -v CEILING | cut -c1-170
grep '^| wall' "$OUT/cubes.txt" | cut -c1-150
grep 'tuned in\|timing:' "$OUT/texla_sp.txt" | cut -c1-260
grep '^| [a-z]' "$OUT/texla_sp.txt" | cut -c1-150
tail -c 2500 "$OUT/peers_sp.txt"
exit 0
