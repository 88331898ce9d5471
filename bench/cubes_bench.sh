#!/bin/sh
# cubes_bench.sh - the falling-cubes benchmark (issue 12): frame time, solver time, CPU time, LCP
# rows and nonzeros of texla-cubes for 60, 240, 1000 and 4000 cubes with each solver (dense: one
# LCP with A = J M^-1 J' formed; islands: one dense LCP per island; sparse: one matrix-free LCP),
# at rest and shot. Headless; one texla-cubes run per row, its one-line summary kept.
#
#   sh bench/cubes_bench.sh [BUILD_DIR]            (default build; run from the repository root)
#
# Environment (all optional):
#   SIZES="60 240 1000 4000"  SOLVERS="sparse islands dense"  SCENES="wall"  SHOTS="rest shot"
#   FRAMES=120   frames per run (the shot at frame FRAMES/4); FRAMES_BIG=60 for 4000 cubes and for
#                the dense solver at 1000 (seconds a frame there)
#   TMO=240      seconds at most per run (timeout(1)); a run cut off is reported as such
#   OUT=...      where each run's full output goes (default: a new folder under /tmp; $OUT of the
#                device tool works: the logs come back)
#   EXTRA="..."  more texla-cubes options for every run (e.g. "--max-iters 96" for a fixed count)
#
# Not run: the dense solver at 4000 cubes (a 4-layer wall: 48000 LCP rows; A would be 48000^2
# floats, 9.2 GB, and wider than GL_MAX_TEXTURE_SIZE 32768; texla-cubes would hand such a step
# to the sparse solver, dense_max_rows 16384). Each line printed is the run's summary: median
# frame ms (and fps), median solver ms (uploads, GPU products and Jacobi, read-back), median CPU
# ms (collide = broadphase + narrow phase + warm start, rows = J, M^-1 J', diag, b, lambda_max,
# upload = host side of the uploads, finish = impulses, measures, integration), median LCP rows,
# nonzeros of J (M^-1 J' has as many), LCPs per frame, Jacobi iterations (raised after an
# unconverged step, up to 4x), worst min w, max |x w|, frames flagged unsolved. The table at the
# end repeats the main columns.
B=${1:-build}
X=$B/bin/texla-cubes
[ -x "$X" ] || { echo "cubes_bench: $X is not built (make $X)" >&2; exit 1; }
SIZES=${SIZES:-"60 240 1000 4000"}
SOLVERS=${SOLVERS:-"sparse islands dense"}
SCENES=${SCENES:-"wall"}
SHOTS=${SHOTS:-"rest shot"}
FRAMES=${FRAMES:-120}
FRAMES_BIG=${FRAMES_BIG:-60}
TMO=${TMO:-240}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/cubes-bench.XXXXXX")}
mkdir -p "$OUT"
TO=""
command -v timeout >/dev/null 2>&1 && TO="timeout $TMO"
TABLE=$OUT/cubes_table.md
echo "| scene | cubes | solver | shot | frames | frame ms | fps | solver ms | CPU ms | rows | nnz(J) | LCPs | iters | unsolved |" > "$TABLE"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|" >> "$TABLE"
first=1
for scene in $SCENES; do
  for n in $SIZES; do
    for solver in $SOLVERS; do
      for shot in $SHOTS; do
        if [ "$solver" = dense ] && [ "$n" -ge 4000 ]; then
          echo "cubes_bench: $scene $n $solver $shot: not run (dense A of ~48000 rows: 9.2 GB, past GL_MAX_TEXTURE_SIZE)"
          echo "| $scene | $n | dense | $shot | - | not run: A too large | | | | | | | | |" >> "$TABLE"
          continue
        fi
        f=$FRAMES
        if [ "$n" -ge 4000 ] || { [ "$solver" = dense ] && [ "$n" -ge 1000 ]; }; then f=$FRAMES_BIG; fi
        s=""
        [ "$shot" = shot ] && s="--shoot $((f / 4))"
        log=$OUT/cubes_${scene}_${n}_${solver}_${shot}.log
        # shellcheck disable=SC2086
        $TO "$X" --headless --frames "$f" --scene "$scene" --cubes "$n" --solver "$solver" $s \
            --width 640 --height 400 --png "$OUT/cubes_${scene}_${n}_${solver}_${shot}.png" \
            $EXTRA > "$log" 2>&1
        rc=$?
        if [ $first = 1 ]; then grep -m1 'texla backend' "$log"; first=0; fi
        line=$(grep 'summary scene' "$log")
        if [ $rc -ne 0 ] || [ -z "$line" ]; then
          why="exit $rc"
          [ $rc -eq 124 ] && why="cut off after ${TMO} s"
          echo "cubes_bench: $scene $n $solver $shot: FAILED ($why): $(tail -n 2 "$log" | tr '\n' ' ')"
          echo "| $scene | $n | $solver | $shot | $f | $why | | | | | | | | |" >> "$TABLE"
          continue
        fi
        echo "$line ($shot)"
        grep -q 'NOTE: .* the sparse solver solved them' "$log" && grep 'NOTE:' "$log"
        # the table row from the summary's fields
        echo "$line" | awk -v sc="$scene" -v sh="$shot" -v n="$n" '{
          for (i = 1; i <= NF; i++) {
            if ($i == "solver" && !sv) sv = $(i + 1);
            if ($i == "frames") fr = $(i + 1); if ($i == "frame") fms = $(i + 1);
            if ($i == "solver" && $(i + 2) == "ms") sms = $(i + 1);
            if ($i == "cpu") cpu = $(i + 1); if ($i == "rows" && $(i + 1) ~ /^[0-9]/) rows = $(i + 1);
            if ($i == "nnz") nnz = $(i + 1); if ($i == "lcps") lcps = $(i + 1);
            if ($i == "iters") it = $(i + 1); if ($i == "unsolved") un = $(i + 1);
            if ($i ~ /^\(/ && $(i + 1) == "fps)") fps = substr($i, 2);
          }
          printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
                 sc, n, sv, sh, fr, fms, fps, sms, cpu, rows, nnz, lcps, it, un }' >> "$TABLE"
      done
    done
  done
done
echo
cat "$TABLE"
echo "cubes_bench: logs and last frames in $OUT"
