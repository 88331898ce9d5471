#!/bin/sh
# One H100 call for BENCHMARKS.md's dense, kernel, solver and demo rows: texla-bench on the
# compute backend (every section but spsuite) and on the fragment path (the seed's design, a
# few sections), the CUDA peers in the same call (bench/peers.py), the wave demo headless at
# 1024^2 and 2048^2 (implicit and explicit), and the falling cubes (bench/cubes_bench.sh at
# 60, 1000 and 4000 cubes). The sparse suite has its own calls: bench/device_sparse.sh.
# Run from the repository root with build/bin and .gl carried (Debian's libEGL/libglvnd/libpng/
# libglfw .debs, unpacked here); everything it prints also lands under $OUT.
#   PARTS="bench peers wave cubes" (default all; two calls fit the device's 600 s a call:
#   PARTS="bench peers", then PARTS="wave cubes")
for f in .gl/*.deb; do dpkg -x "$f" / ; done; ldconfig
PARTS=${PARTS:-"bench peers wave cubes"}
OUT=${OUT:-/tmp/texla-device}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,clocks.mem --format=csv | tee "$OUT/smi_before.txt"
export XDG_CACHE_HOME=$(mktemp -d)
t0=$(date +%s)
for p in $PARTS; do
    case $p in
    bench)
        timeout 330 ./build/bin/texla-bench --backend compute \
            --sections ew,dot,mm,vec,banded,sparse,cg,lcp,kernels > "$OUT/bench_compute.txt" 2>&1
        echo "bench compute rc=$? at $(( $(date +%s) - t0 )) s"
        timeout 60 ./build/bin/texla-bench --backend fragment --sizes 4096 --mm 1024 \
            --sections ew,vec,banded,cg > "$OUT/bench_fragment.txt" 2>&1
        echo "bench fragment rc=$? at $(( $(date +%s) - t0 )) s"
        cp "$XDG_CACHE_HOME/texla/tune.txt" "$OUT/tune_bench.txt" 2>/dev/null ;;
    peers)
        timeout 150 python3 bench/peers.py copy blas1 gemm gemv vadd reduce spmv cg tiny \
            --json "$OUT/peers.json" > "$OUT/peers.txt" 2>&1
        echo "peers rc=$? at $(( $(date +%s) - t0 )) s" ;;
    wave)
        for s in 1024 2048; do for m in implicit explicit; do
            echo "== texla-wave --size $s --mode $m"
            timeout 60 ./build/bin/texla-wave --headless --frames 300 --size $s --mode $m --cg 8 \
                --drops 4 2>&1 | tail -3
        done; done > "$OUT/wave.txt" 2>&1
        echo "wave done at $(( $(date +%s) - t0 )) s" ;;
    cubes)
        SIZES="60 1000 4000" SOLVERS="sparse" SHOTS="shot" FRAMES=120 TMO=60 \
            OUT="$OUT/cubes" sh bench/cubes_bench.sh > "$OUT/cubes.txt" 2>&1
        SIZES="60 1000" SOLVERS="islands dense" SHOTS="shot" FRAMES=120 TMO=60 \
            OUT="$OUT/cubes2" sh bench/cubes_bench.sh >> "$OUT/cubes.txt" 2>&1
        echo "cubes rc=$? at $(( $(date +%s) - t0 )) s" ;;
    esac
done
nvidia-smi --query-gpu=pstate,clocks.sm,clocks.mem --format=csv | tee "$OUT/smi_after.txt"
for f in bench_compute bench_fragment; do
    [ -f "$OUT/$f.txt" ] && grep -v "^    \|candidate" "$OUT/$f.txt" | cut -c1-160 | head -150
done
[ -f "$OUT/peers.txt" ] && tail -60 "$OUT/peers.txt" | cut -c1-160
[ -f "$OUT/wave.txt" ] && cat "$OUT/wave.txt" | cut -c1-200
[ -f "$OUT/cubes.txt" ] && grep -v "^+" "$OUT/cubes.txt" | tail -40 | cut -c1-200
exit 0
