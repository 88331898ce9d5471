#!/bin/sh
# One H100 call: cuSPARSE's SpMV kernels on spgen matrices under Nsight Compute (bench/ncu_peer.py).
#   NCU_SP="dense_rows,dr_short,dr_long,circuit,rmat"
for f in .gl/*.deb; do dpkg -x "$f" / ; done; ldconfig
OUT=${OUT:-/tmp/texla-device}
SP=${NCU_SP:-dense_rows,dr_short,dr_long,circuit,rmat}
D=/tmp/ncu_$(echo "$SP" | tr , _)
mkdir -p "$OUT"
python3 bench/spgen.py "$D" --scale 1.0 --only "$SP" > /tmp/spgen.log 2>&1 || tail -5 /tmp/spgen.log
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct
M=$M,l1tex__t_sector_hit_rate.pct,launch__grid_size,launch__block_size,launch__registers_per_thread
M=$M,sm__warps_active.avg.pct_of_peak_sustained_active,lts__t_sectors_op_read.sum
M=$M,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
M=$M,launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic
timeout 400 "$NCU" --clock-control none --profile-from-start off --metrics "$M" --csv \
    python3 bench/ncu_peer.py "$D" "$SP" > "$OUT/ncu.csv" 2> "$OUT/ncu.err"
echo "ncu rc=$?"
tail -3 "$OUT/ncu.err"
