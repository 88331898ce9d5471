#!/bin/sh
# One H100 call comparing two builds on pinned variants: build/bin0 (before: a copy of an
# earlier build/bin) and build/bin (after), run as bin0, bin, bin0 on the same matrices, each
# variant's GPU time printed (texla-bench spsuite with SP_PIN). Carry build/bin, build/bin0, .gl.
#   sh bench/device_ab.sh circuit "csr row xbuf long>256/4096 wg=128;csr row xbuf wg=256" \
#                         rmat "csr merge E=4 wg=512"
# (matrix, pins) pairs: spgen.py class names, the candidate tables' words separated by ';'.
# BINS="build/bin build/bin": the builds run on each matrix, in order (default "build/bin0
# build/bin build/bin0"); one build's pins timed twice, carrying build/bin and .gl only.
for f in .gl/*.deb; do dpkg -x "$f" / ; done; ldconfig
export XDG_CACHE_HOME=$(mktemp -d)
names=""
i=0
for a in "$@"; do
    [ $((i % 2)) -eq 0 ] && names="$names${names:+,}$a"
    i=$((i + 1))
done
python3 bench/spgen.py /tmp/ab_g --only "$names" > /dev/null 2>&1 || { echo "spgen.py failed"; exit 1; }
run() { # bin dir (bin:glsl reads the shaders from folder glsl), matrix, pins
    mkdir -p "/tmp/ab_$2"
    ln -sf "/tmp/ab_g/$2.tsp" "/tmp/ab_$2/$2.tsp"
    bin=${1%%:*} glsl=""
    [ "$bin" != "$1" ] && glsl="--glsl ${1#*:}"
    SP_PIN="$3" SP_BUDGET=0.5 timeout 120 "./$bin/texla-bench" $glsl --sections spsuite --spdir "/tmp/ab_$2" 2>&1 |
        grep " pin " | sed "s|^|$1 |" | cut -c1-140
}
while [ $# -ge 2 ]; do
    for b in ${BINS:-build/bin0 build/bin build/bin0}; do run "$b" "$1" "$2"; done
    shift 2
done
