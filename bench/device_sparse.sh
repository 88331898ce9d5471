#!/bin/sh
# H100: generate the sparse suite and time texla's tuned products on it (part 1), or the
# cuSPARSE peers on the same files (part 2: `sh bench/device_sparse.sh peers`), in one warm lease.
# SP_ONLY=name1,name2 makes only those matrices (spgen.py --only).
for f in .gl/*.deb; do dpkg -x "$f" / ; done; ldconfig
if [ "$1" = peers ]; then
    timeout 420 python3 bench/peers.py spsuite --spdir /tmp/sps > "$OUT/peers_sp.txt" 2>&1
    echo "peers rc=$?"; tail -c 6000 "$OUT/peers_sp.txt"
    exit 0
fi
nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,clocks.mem --format=csv
[ -d /tmp/sps ] || python3 bench/spgen.py /tmp/sps --scale 1.0 ${SP_ONLY:+--only "$SP_ONLY"} \
    > "$OUT/spgen.log" 2>&1
ls /tmp/sps | head -20
export XDG_CACHE_HOME=$(mktemp -d)
timeout 420 ./build/bin/texla-bench --sections spsuite --spdir /tmp/sps > "$OUT/texla_sp.txt" 2>&1
echo "bench rc=$?"
cp "$XDG_CACHE_HOME/texla/tune.txt" "$OUT/tune_sp.txt" 2>/dev/null
grep -v "^ *candidate\|^    " "$OUT/texla_sp.txt" | cut -c1-300 | tail -70
