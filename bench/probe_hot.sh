#!/bin/sh
# One H100 call: which extra entry of circuit's short rows costs texla more than cuSPARSE.
# bench/probe_hot.py makes, from circuit's near-diagonal entries, matrices whose rows each get one
# more entry (near, far but ordered, in one of 8 hot columns, random); texla tunes each and times
# the pins below, cuSPARSE (peers.py) times the same files. Carry build/bin and .gl.
#   PINS="csr row xbuf wg=256;..."   the variants pinned (default below)
for f in .gl/*.deb; do dpkg -x "$f" / ; done; ldconfig
O=${OUT:-/tmp/texla-device}
mkdir -p "$O"
export XDG_CACHE_HOME=$(mktemp -d)
t0=$(date +%s)
python3 bench/spgen.py /tmp/g --only circuit > /tmp/spgen.log 2>&1
python3 bench/probe_hot.py /tmp/g/circuit.tsp /tmp/ph
echo "gen done at $(( $(date +%s) - t0 )) s"
P=${PINS:-"csr row xbuf wg=256;csr row wg=256;csr row cols16 wg=256;sell row C=32 rowsort xbuf wg=256;csr lanes L=4 xbuf wg=256;csr lanes L=8 wg=256;csr stream xbuf wg=512;csr merge E=4 wg=512"}
SP_PIN="$P" timeout 300 ./build/bin/texla-bench --sections spsuite --spdir /tmp/ph > "$O/texla_ph.txt" 2>&1
echo "texla rc=$? at $(( $(date +%s) - t0 )) s"
timeout 150 python3 bench/peers.py spsuite --spdir /tmp/ph > "$O/peers_ph.txt" 2>&1
echo "peers rc=$? at $(( $(date +%s) - t0 )) s"
grep ' pin \|tuned in' "$O/texla_ph.txt" | cut -c1-160
grep '^| h_' "$O/texla_ph.txt" | cut -c1-170
grep -h '^h_' "$O/peers_ph.txt"
