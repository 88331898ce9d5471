#!/bin/sh
# One H100 call: circuit split into its parts by bench/split_circuit.py (c_short: all but the
# rows past 256 entries; c_long: only those; c_near, removed here: c_short's entries within
# 32767 of the diagonal), tuned by texla and timed by cuSPARSE (peers.py) beside the whole
# matrix; then the block matrices (complex3x3, fem3x3) the same way. Run from the repository
# root with build/bin and .gl carried; everything lands under $OUT.
for f in .gl/*.deb; do dpkg -x "$f" / ; done; ldconfig
O=${OUT:-/tmp/texla-device}
mkdir -p "$O/p1" "$O/p2"
export XDG_CACHE_HOME=$(mktemp -d)
t0=$(date +%s)
python3 bench/spgen.py /tmp/g --only circuit,complex3x3,fem3x3 > /tmp/spgen.log 2>&1
mkdir -p /tmp/p1 /tmp/p2
python3 bench/split_circuit.py /tmp/g/circuit.tsp /tmp/p1 2>&1 | tail -4
rm -f /tmp/p1/c_near.tsp
cp /tmp/g/circuit.tsp /tmp/p1/
cp /tmp/g/complex3x3.tsp /tmp/g/fem3x3.tsp /tmp/p2/
echo "gen done at $(( $(date +%s) - t0 )) s"
OUT=$O/p1 timeout 200 ./build/bin/texla-bench --sections spsuite --spdir /tmp/p1 > "$O/texla_p1.txt" 2>&1
echo "p1 rc=$? at $(( $(date +%s) - t0 )) s"
timeout 100 python3 bench/peers.py spsuite --spdir /tmp/p1 > "$O/peers_p1.txt" 2>&1
OUT=$O/p2 timeout 120 ./build/bin/texla-bench --sections spsuite --spdir /tmp/p2 > "$O/texla_p2.txt" 2>&1
echo "p2 rc=$? at $(( $(date +%s) - t0 )) s"
timeout 100 python3 bench/peers.py spsuite --spdir /tmp/p2 > "$O/peers_p2.txt" 2>&1
echo "peers rc=$? at $(( $(date +%s) - t0 )) s"
grep '^| [a-z]' "$O/texla_p1.txt" "$O/texla_p2.txt" | cut -c1-170
grep -h '^c_\|^circuit\|^complex\|^fem' "$O/peers_p1.txt" "$O/peers_p2.txt"
