#!/usr/bin/env bash
# On the GPU host (after `. .gpu/env.sh && . .gpu/run-on-host`), from the source tree:
#   scripts/gpu-host/bfs-scaling.sh            # scale 26; add 27 with SCALES=26,27
# Issue 32's BFS rows in one call: `tessera bench bfs` (direction-optimizing, 8 validated
# roots, the per-level profile of two more) on 1 GPU, then on 2 and 4 ranks where there are
# that many GPUs, with the delegated hubs off and on (TESSERA_BENCH_BFS_HUBS=0,auto), every
# multi-rank run with --bind-to none. Each rank count runs in its own job, as in
# docs/performance.md; the table at the end divides each row's rate by one GPU's at the same
# scale. Logs go under $OUT. NGPU overrides the count of GPUs (nvidia-smi -L).
set -u
B=${BUILD_DIR:-build-gpu}
OUT=${OUT:-/tmp/out}
SCALES=${SCALES:-26}
ROOTS=${ROOTS:-8}
mkdir -p "$OUT"
ngpu=${NGPU:-$(nvidia-smi -L 2>/dev/null | wc -l)}
[ "$ngpu" -ge 1 ] || { echo "bfs-scaling: no GPU found (nvidia-smi -L); set NGPU to run anyway" >&2; exit 1; }

rows="$OUT/bfs_scaling_rows.txt"
: > "$rows"
for p in 1 2 4; do
  [ "$p" -le "$ngpu" ] || continue
  log="$OUT/bfs_scaling_np$p.log"
  hubs=$([ "$p" -gt 1 ] && echo 0,auto || echo 0)
  env TESSERA_BENCH_BFS_SCALES="$SCALES" TESSERA_BENCH_BFS_ROOTS="$ROOTS" \
    TESSERA_BENCH_BFS_ALGORITHMS=direction_optimizing TESSERA_BENCH_BFS_HUBS="$hubs" TESSERA_BFS_PROFILE=1 \
    timeout 580 mpirun -n "$p" --bind-to none "$B/bin/tessera" bench bfs > "$log" 2>&1
  echo "== P=$p: rc=$? ($log)"
  # "<case> scale <s> <ms> <rate> GTEPS (hmean) ..." -> "P scale rate case"
  grep 'GTEPS (hmean)' "$log" | awk -v p="$p" '{
    for (i = 1; i <= NF; ++i) if ($i == "scale") { s = $(i + 1); ms = $(i + 2); rate = $(i + 3); c = $1
      for (j = 2; j < i; ++j) c = c " " $j }
    print p, s, rate, ms, c }' >> "$rows"
done

echo
echo "ranks  scale  GTEPS (hmean)       search [ms]  speed-up  case"
awk '$1 == 1 && !($2 in one) { one[$2] = $3 }
     { printf "%5d  %5s  %13s  %16s  %8s  %s\n", $1, $2, $3, $4,
              ($2 in one && one[$2] > 0) ? sprintf("%.3fx", $3 / one[$2]) : "-",
              substr($0, index($0, $5)) }' "$rows"
