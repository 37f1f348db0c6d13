#!/usr/bin/env bash
# On the GPU host (after `. .gpu/env.sh && . .gpu/run-on-host`), from the source tree:
#   scripts/gpu-host/fdtd-owed.sh [--no-tests] [--ncu]
# The FDTD measurements docs/performance.md lists as owed (issues 32 and 36), in one call:
#   1. the blocked sweep's and the fused z-cut's tests (ctest -L gpu: fdtd_gpu, fdtd_gpu_blocked,
#      fdtd_blocked_ranks), each rank count on the GPUs there are (2 ranks share one GPU);
#   2. `tessera bench fdtd` at 512^3 on one GPU (the blocked rows: vacuum, materials, periodic,
#      CPML inside the pass);
#   3. weak scaling on every GPU (nccl): the fused step on the default grid and on a z cut,
#      and the blocked sweep across ranks, each with its overlap on and off
#      (TESSERA_FDTD_FUSED_OVERLAP, TESSERA_FDTD_BLOCKED_OVERLAP);
#   4. with --ncu: Nsight Compute's DRAM bytes and time of the blocked kernel at 512^3 (issue 36
#      asks for the bytes per cell-update against the 48/k model), a few minutes of replays.
# Logs and JSON go to $OUT; the rows that answer the issues are printed last.
set -u
B=${BUILD_DIR:-build-gpu}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
ngpu=$(nvidia-smi -L | wc -l)
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | sort | uniq -c
tests=1 ncu=0
for arg in "$@"; do
  case "$arg" in --no-tests) tests=0 ;; --ncu) ncu=1 ;; *) echo "fdtd-owed.sh: unknown option $arg" >&2; exit 2 ;; esac
done
if [ "$tests" = 1 ]; then
  # Default binding (each rank on one core, as Slurm often gives it): a hang only one binding
  # shows is a real bug, so the cross-node variants (--bind-to none) run too.
  timeout 420 ctest --test-dir "$B" -L gpu -R "fdtd_gpu|blocked" -j "$((ngpu > 1 ? ngpu : 2))" \
    --output-on-failure > "$OUT/ctest_fdtd.log" 2>&1
  echo "== ctest -L gpu -R 'fdtd_gpu|blocked': rc=$? $(grep -E 'tests passed' "$OUT/ctest_fdtd.log")"
  grep -E '\*\*\*|Failed' "$OUT/ctest_fdtd.log" | head -20
fi
TESSERA_BENCH_FDTD_SIZES=512 timeout 300 "$B/bin/tessera" bench fdtd --json "$OUT/bench_fdtd_np1.json" \
  > "$OUT/bench_fdtd_np1.txt" 2>&1
echo "== bench fdtd 512^3, one GPU: rc=$?"
if [ "$ngpu" -gt 1 ]; then
  for overlap in 1 0; do
    TESSERA_BENCH_FDTD_SIZES="" TESSERA_FDTD_FUSED_OVERLAP=$overlap TESSERA_FDTD_BLOCKED_OVERLAP=$overlap timeout 400 \
      mpirun -n "$ngpu" --bind-to none "$B/bin/tessera" bench fdtd --transport nccl \
      --json "$OUT/bench_fdtd_np${ngpu}_overlap$overlap.json" > "$OUT/bench_fdtd_np${ngpu}_overlap$overlap.txt" 2>&1
    echo "== bench fdtd weak, $ngpu GPUs, TESSERA_FDTD_FUSED_OVERLAP=TESSERA_FDTD_BLOCKED_OVERLAP=$overlap: rc=$?"
  done
fi
if [ "$ncu" = 1 ] && command -v ncu > /dev/null; then
  # Every blocked_columns launch of a one-repeat bench (k = 2, 3, 4; the demangled name gives K).
  TESSERA_BENCH_FDTD_SIZES=512 timeout 420 ncu --clock-control none -k regex:blocked_columns --launch-count 24 \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum \
    "$B/bin/tessera" bench fdtd --repeat 1 > "$OUT/ncu_blocked.txt" 2>&1
  echo "== ncu blocked_columns: rc=$?"
  grep -E "blocked_columns|dram__bytes|gpu__time_duration" "$OUT/ncu_blocked.txt" | head -80
fi
echo "=== the rows owed (docs/performance.md)"
grep -hE "blocked k=|fused|weak " "$OUT"/bench_fdtd_*.txt | grep -vE "^\[tessera\]" | sort -u
