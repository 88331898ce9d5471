#!/bin/sh
# One H100 call: the compute kernels' correctness suite and their benchmark with a fresh
# tuning cache (every variant timed on first use). Run from the repo root with build/bin and
# .gl carried (see BENCHMARKS.md for the device setup).
for f in .gl/*.deb; do dpkg -x "$f" / ; done; ldconfig
nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,clocks.mem --format=csv
export XDG_CACHE_HOME=$(mktemp -d)
timeout 150 ./build/bin/test-texla kernels ops > "$OUT/kernels_test.log" 2>&1; echo "tests rc=$?"
grep -E "^FAIL|suite .*:" "$OUT/kernels_test.log" | head -30
timeout 300 ./build/bin/texla-bench --backend compute --sections kernels > "$OUT/kernels_bench.txt" 2>&1
echo "bench rc=$?"
cp "$XDG_CACHE_HOME/texla/tune.txt" "$OUT/tune.txt" 2>/dev/null
nvidia-smi --query-gpu=pstate,clocks.sm,clocks.mem --format=csv
cat "$OUT/kernels_bench.txt" | cut -c1-150
echo "== products: the chosen path (tuned), then each path forced =="
grep -E "^\| kernels matmul" "$OUT/kernels_bench.txt" | cut -c1-190
grep -E "^gemm_path|gemm_path 1" "$OUT/tune.txt" 2>/dev/null
