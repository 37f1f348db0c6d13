#!/usr/bin/env bash
# On the GPU host (after `. .gpu/env.sh && . .gpu/run-on-host`): the gpu tests, `tessera info`
# on 1 and on every GPU, and the comm benchmark. Logs go to $OUT; a summary is printed last.
set -u
B=${BUILD_DIR:-build-gpu}
OUT=${OUT:-/tmp/out}
ngpu=$(nvidia-smi -L | wc -l)
nvidia-smi -L
ctest --test-dir "$B" -L gpu --output-on-failure -j1 > "$OUT/ctest_gpu.log" 2>&1; echo "ctest -L gpu: rc=$?"
ctest --test-dir "$B" -R 'core_buffers|core_backend' --output-on-failure > "$OUT/ctest_core.log" 2>&1; echo "core: rc=$?"
mpirun -n 1 "$B/bin/tessera" info > "$OUT/info_np1.txt" 2>&1
mpirun -n "$ngpu" "$B/bin/tessera" info > "$OUT/info_np$ngpu.txt" 2>&1
mpirun -n "$ngpu" "$B/bin/tessera" bench comm --json "$OUT/bench_comm.json" > "$OUT/bench_comm.txt" 2>&1
echo "=== ctest summary"; grep -E "tests passed|Failed|Timeout|\*\*\*" "$OUT/ctest_gpu.log" | head -30
grep -h -E "SKIPPED|skipped" "$OUT/ctest_gpu.log" | sort | uniq -c | head -10
echo "=== info np$ngpu"; cat "$OUT/info_np$ngpu.txt"
echo "=== bench comm"; cat "$OUT/bench_comm.txt"
