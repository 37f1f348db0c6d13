#!/usr/bin/env bash
# compute-sanitizer over tessera's GPU unit tests: memcheck (out-of-bounds and misaligned
# accesses, leaks), racecheck (shared-memory hazards) and synccheck (barrier misuse), one
# rank each. NCCL probes the device with calls that fail on purpose (error 209 from
# cudaFuncGetAttributes inside ncclCommInitRank), and racecheck flags shared-memory writes
# inside cuSPARSE's csrmv kernel (the spmv baseline): reports in NVIDIA's libraries (libnccl,
# cusparse::) are counted apart, so only tessera's own errors fail the run.
#   usage (on the GPU host, after . .gpu/env.sh && . .gpu/run-on-host):
#     scripts/gpu-host/sanitize.sh BUILD_DIR [OUT_DIR]
#   TOOLS="memcheck racecheck" chooses tools, TESTS='nbody|spmv' (a regex) the executables,
#   SANITIZE_SECONDS the time each gets (the tools slow kernels 10-100x; a timeout is reported
#   as exit 124, not as an error found).
#   exit status: 0 when no tool reported an error of tessera's, 1 otherwise.
set -uo pipefail
build=${1:?usage: sanitize.sh BUILD_DIR [OUT_DIR]}
out=${2:-sanitize-logs}
tools=${TOOLS:-memcheck racecheck synccheck}
limit=${SANITIZE_SECONDS:-300}  # per tool and test executable
mkdir -p "$out"
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ -x "$cs" ] || { echo "sanitize.sh: compute-sanitizer not found" >&2; exit 2; }

# The gtest executables of the gpu label (each runs on one rank without mpirun).
mapfile -t tests < <(find "$build/tests" -type f -perm -u+x -name '*_gpu*' | sort | grep -E -- "${TESTS:-.}")
((${#tests[@]})) || { echo "sanitize.sh: no *_gpu test executables under $build/tests" >&2; exit 2; }

# Counts error records in a sanitizer log, leaving out those raised inside NCCL.
count_errors() {
  /usr/bin/env python3 - "$1" <<'EOF'
import re, sys
text = open(sys.argv[1], errors="replace").read().splitlines()
records, cur = [], []
for line in text:
    if not line.startswith("========= "):
        continue
    body = line[10:]
    if re.match(r"(Invalid|Program hit|Race reported|Barrier error|Error:|Leaked|Uninitialized|Misaligned|Out-of-range|Warp|Malformed|Potential)", body):
        if cur: records.append(cur)
        cur = [body]
    elif cur:
        cur.append(body)
if cur: records.append(cur)
library = lambda r: any("libnccl" in l or "cusparse::" in l for l in r)
ours = [r for r in records if not library(r) and not r[0].startswith("ERROR SUMMARY")]
print(len(ours), len(records) - len(ours))
for r in ours[:3]:
    print("  " + "\n  ".join(r[:8]))
EOF
}

status=0
printf '%-28s %-10s %8s %8s %6s  %s\n' test tool tessera library exit seconds | tee "$out/summary.txt"
for t in "${tests[@]}"; do
  name=$(basename "$t")
  for tool in $tools; do
    log="$out/$name.$tool.log"
    start=$(date +%s)
    timeout "$limit" "$cs" --tool "$tool" --print-limit 50 "$t" >"$log" 2>&1
    rc=$?
    secs=$(( $(date +%s) - start ))
    read -r ours library < <(count_errors "$log" | head -1)
    printf '%-28s %-10s %8s %8s %6s  %s\n' "$name" "$tool" "$ours" "$library" "$rc" "$secs" | tee -a "$out/summary.txt"
    if [ "$ours" != 0 ] || { [ "$rc" != 0 ] && [ "$rc" != 124 ]; }; then  # an error of tessera's, or a failed test
      status=1
      count_errors "$log" | tail -n +2 | tee -a "$out/summary.txt"
      grep -m3 -E "Segmentation|FAILED|Aborted|timeout" "$log" | sed 's/^/  /' | tee -a "$out/summary.txt"
    fi
  done
done
exit $status
