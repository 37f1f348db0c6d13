#!/usr/bin/env bash
# On the GPU host (after `. .gpu/env.sh && . .gpu/run-on-host`), from the source tree:
#   scripts/gpu-host/spmv-weak.sh
# SpMV weak scaling, issue 32's command: a 7-point Poisson grid of about 256^3 rows per GPU
# (n = 256, 323, 406 for 1, 2, 4 ranks), the hybrid variant, 60 multiplies; each rank count on
# the GPUs there are, with NCCL's default CTAs and with NCCL_MAX_CTAS=2 (fewer SMs taken from
# the local product while the ghosts travel). Prints the log's median and phases per run.
set -u
B=${BUILD_DIR:-build-gpu}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
ngpu=$(nvidia-smi -L | wc -l)
declare -A n_of=([1]=256 [2]=323 [4]=406)
for p in 1 2 4; do
  [ "$p" -le "$ngpu" ] || continue
  for ctas in default 2; do
    log="$OUT/spmv_weak_np${p}_ctas$ctas.log"
    env $([ "$ctas" = default ] || echo NCCL_MAX_CTAS=$ctas) timeout 300 mpirun -n "$p" --bind-to none "$B/bin/tessera" run \
      inputs/spmv/multiply_powerlaw.toml --set spmv.matrix.source=poisson7 --set "spmv.matrix.n=${n_of[$p]}" \
      --set spmv.variant=hybrid --set spmv.verify=false --set run.steps=60 --set diagnostics.every=0 \
      --set "run.output_dir=$OUT/spmv_weak_np${p}_$ctas" --overwrite > "$log" 2>&1
    echo "== P=$p n=${n_of[$p]} NCCL_MAX_CTAS=$ctas: rc=$? $(grep -o 'multiplies, median.*' "$log")"
    [ "$p" -gt 1 ] || break  # one rank: no NCCL
  done
done
