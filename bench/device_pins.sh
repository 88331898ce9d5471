#!/bin/sh
# One H100 call timing pinned variants of one build (build/bin), REPS times each (default 2),
# the GPU time of each printed (texla-bench spsuite with SP_PIN). Carry build/bin and .gl.
#   sh bench/device_pins.sh rmat "csr merge E=4 wg=128;csr lanes L=4 vec4 long>256/16384 wg=256" \
#                           randlen "csr stream wg=512"
# (matrix, pins) pairs: spgen.py class names, the candidate tables' words separated by ';'.
for f in .gl/*.deb; do dpkg -x "$f" / ; done; ldconfig
export XDG_CACHE_HOME=$(mktemp -d)
names=""
i=0
for a in "$@"; do
    [ $((i % 2)) -eq 0 ] && names="$names${names:+,}$a"
    i=$((i + 1))
done
python3 bench/spgen.py /tmp/pin_g --only "$names" > /dev/null 2>&1 || { echo "spgen.py failed"; exit 1; }
while [ $# -ge 2 ]; do
    mkdir -p "/tmp/pin_$1"
    ln -sf "/tmp/pin_g/$1.tsp" "/tmp/pin_$1/$1.tsp"
    r=0
    while [ $r -lt "${REPS:-2}" ]; do
        SP_PIN="$2" SP_BUDGET=0.5 timeout 120 ./build/bin/texla-bench --sections spsuite \
            --spdir "/tmp/pin_$1" 2>&1 | grep " pin " | cut -c1-140
        r=$((r + 1))
    done
    shift 2
done
