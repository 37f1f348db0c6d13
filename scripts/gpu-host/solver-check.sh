#!/usr/bin/env bash
# On the GPU host (after `. .gpu/env.sh && . .gpu/run-on-host`):
#   scripts/gpu-host/solver-check.sh [--no-tests] [--ranks "1 2"] SOLVER...
# runs each solver's gpu tests and `tessera bench SOLVER` on each rank count (default: 1 and
# every GPU), writing logs and JSON to $OUT and printing the tables last.
set -u
B=${BUILD_DIR:-build-gpu}
OUT=${OUT:-/tmp/out}
ngpu=$(nvidia-smi -L | wc -l)
ranks="1 $ngpu"
tests=1
while [ $# -gt 0 ]; do
  case "$1" in
    --no-tests) tests=0; shift ;;
    --ranks) ranks=$2; shift 2 ;;
    *) break ;;
  esac
done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv
# SM clock and power while the benchmarks run: compute-bound rates scale with the clock.
nvidia-smi --query-gpu=index,clocks.sm,power.draw --format=csv,noheader,nounits -lms 250 > "$OUT/clocks.csv" 2>/dev/null &
sampler=$!
for s in "$@"; do
  if [ "$tests" = 1 ]; then
    ctest --test-dir "$B" -L gpu -R "$s" --output-on-failure -V > "$OUT/ctest_$s.log" 2>&1
    echo "== ctest -L gpu -R $s: rc=$? $(grep -E 'tests passed' "$OUT/ctest_$s.log")"
    grep -E '\*\*\*|Failed|SKIPPED \]|skip' "$OUT/ctest_$s.log" | sort | uniq -c | head -20
  fi
  for p in $(echo $ranks | tr ' ' '\n' | sort -un); do
    [ "$p" -le "$ngpu" ] || continue
    timeout 500 mpirun -n "$p" --bind-to none "$B/bin/tessera" bench "$s" --json "$OUT/bench_${s}_np$p.json" > "$OUT/bench_${s}_np$p.txt" 2>&1
    echo "== bench $s np$p: rc=$?"
  done
done
kill $sampler 2>/dev/null
echo "=== SM clock [MHz] / power [W] while busy (samples with power > 200 W): min, median, max"
awk -F', *' '$3 > 200 {print $2, $3}' "$OUT/clocks.csv" | sort -n | awk '{c[NR]=$1; p[NR]=$2} END {if (NR) print c[1], c[int((NR+1)/2)], c[NR], "MHz;", p[int((NR+1)/2)], "W median;", NR, "samples"}'
for f in "$OUT"/bench_*.txt; do echo "=== $f"; cat "$f"; done
