#!/bin/sh
# One H200 call: a CSR product's loads in CUDA (bench/gather_floor.py) beside plain GL's
# (texla-bench --sections stream, its R-MAT table) and cuSPARSE, on spgen.py's matrices.
# Carry build/bin and .gl.
#   M="rmat,powerlaw_mid,circuit" sh bench/device_floor.sh
for f in .gl/*.deb; do dpkg -x "$f" / ; done; ldconfig
[ -n "$M" ] || { echo "M: the matrices (spgen.py class names, comma-separated)"; exit 2; }
export XDG_CACHE_HOME=$(mktemp -d)
t0=$(date +%s)
python3 bench/spgen.py /tmp/fg --only "$M" > /tmp/spgen.log 2>&1 || { echo "spgen.py failed"; tail /tmp/spgen.log; exit 1; }
echo "spgen done at $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm --format=csv,noheader
files=""
for m in $(echo "$M" | tr , ' '); do files="$files /tmp/fg/$m.tsp"; done
timeout 200 python3 bench/gather_floor.py $files > "${OUT:-/tmp}/gather_floor.txt" 2>&1
cat "${OUT:-/tmp}/gather_floor.txt"
echo "gather_floor done at $(( $(date +%s) - t0 )) s"
TEXLA_STREAM_FEW=1 TEXLA_STREAM_MB=8 timeout 150 ./build/bin/texla-bench --sections stream > /tmp/stream.txt 2>&1
sed -n '/floor on R-MAT/,$p' /tmp/stream.txt | head -n 30
echo "all done at $(( $(date +%s) - t0 )) s"
