#!/usr/bin/env bash
# Threads that fit the rank's cores (issue 31): every solver's cpu run on 2 ranks, bound to
# cores and unbound, logs the thread count of comm/host_threads.hpp's rule, and its OpenMP
# regions run with it:
#   --bind-to core   each rank has the cores it is bound to (one here)
#   --bind-to none   each of the 2 ranks has half of the cores mpirun may use
#   OMP_NUM_THREADS  wins, with a warning when the node's ranks ask for more than its cores
# and 3 ranks bound to the cores of a 2-core machine finish (no wait may need a core of its own).
# Usage: run_threads.sh SOLVER TESSERA WORKDIR MPIEXEC "PREFLAGS"
set -uo pipefail
solver=$1 tessera=$2 work=$3 mpiexec=$4 preflags=$5
root=$(cd "$(dirname "$0")/../../.." && pwd)
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

fail() { echo "FAIL [$solver]: $*" >&2; exit 1; }

# Small versions of the shipped decks: seconds on 2 cpu ranks.
case $solver in
  nbody) deck=$root/inputs/nbody/plummer_demo.toml; sets=(--set nbody.n=512 --set run.steps=4) ;;
  fdtd) deck=$root/inputs/fdtd/pec_cavity.toml; sets=(--set run.steps=20 --set diagnostics.every=10) ;;
  scan) deck=$root/inputs/scan/seed_123123123.toml; sets=(--set scan.input.length=100000 --set run.steps=2) ;;
  bfs) deck=$root/inputs/bfs/graph500_small.toml; sets=(--set bfs.graph.scale=10 --set bfs.root_count=4) ;;
  spmv) deck=$root/inputs/spmv/cg_poisson.toml; sets=(--set spmv.matrix.n=12 --set run.steps=20) ;;
  *) fail "unknown solver" ;;
esac

cores=$(nproc)  # the cores this test (and an unbound mpirun's ranks) may use
run() {  # run LABEL MPIEXEC-FLAGS...: a cpu run (2 ranks unless NP is set); its log in LABEL.txt
  local label=$1; shift
  # shellcheck disable=SC2086
  timeout 120 "$mpiexec" -n "${NP:-2}" $preflags "$@" "$tessera" run "$deck" --backend cpu "${sets[@]}" \
    --set run.output_dir="$work/$label" >"$label.txt" 2>&1
  local rc=$?
  echo "--- $label (exit $rc)"; cat "$label.txt"
  [ "$rc" = 0 ] || fail "$label: exit $rc"
}
expect_threads() {  # expect_threads LABEL N: the log names N threads and an OpenMP team of N
  grep -Eq "host threads per rank: $2 \(" "$1.txt" || fail "$1: expected 'host threads per rank: $2'"
  grep -Eq "an OpenMP team of $2([^0-9]|$)" "$1.txt" || fail "$1: expected the OpenMP regions to run $2 thread(s)"
}

half=$(( cores / 2 )); [ "$half" -ge 1 ] || half=1
# Bound: one core per rank (overload-allowed, so that a 1-core machine binds both to its core).
run bound --bind-to core:overload-allowed
expect_threads bound 1
# Unbound: the ranks share the cores they may all use.
run unbound --bind-to none
expect_threads unbound "$half"
# OMP_NUM_THREADS wins; 2 ranks of 'cores' threads each ask for twice the node: one warning.
OMP_NUM_THREADS=$cores run forced -x OMP_NUM_THREADS --bind-to none
expect_threads forced "$cores"
grep -q "OMP_NUM_THREADS" forced.txt || fail "forced: the rule is not named"
[ "$(grep -c 'take turns on the cores' forced.txt)" = 1 ] || fail "forced: expected one warning about the oversubscribed node"
# More ranks than cores, each bound to one (two share a core here): slower, but no wait may
# need a core of its own, so it ends well inside the time limit.
NP=3 run oversubscribed --bind-to core:overload-allowed
expect_threads oversubscribed 1
echo "PASS [$solver]: bound 1, unbound $half, OMP_NUM_THREADS $cores thread(s) per rank"
