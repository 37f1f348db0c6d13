#!/usr/bin/env bash
# The Slurm job scripts, for real: a one-node Slurm cluster on localhost (cluster.sh) runs the
# CPU variants of the batch scripts and we check each job's end state and HDF5 output, the
# time-limit path (signal -> checkpoint -> clean exit -> resubmitted job continues), and that a
# bad deck fails the job. Every script is also parsed with `bash -n`.
#   usage: test_jobscripts.sh REPO BUILD_DIR WORK_DIR PYTHON
# Exit 77 (skipped) when Slurm cannot be installed (not root and not installed).
set -u
repo=$1 build=$2 work=$3 python=$4
. "$repo/tests/slurm/cluster.sh"
fail() { echo "FAIL: $*"; for f in "$work"/*.out; do echo "--- $f"; tail -30 "$f"; done; exit 1; }
trap cluster_stop EXIT

for f in "$repo"/jobscripts/slurm/*.sbatch "$repo"/jobscripts/slurm/*.sh "$repo"/jobscripts/mpirun/*.sh; do
  [ -f "$f" ] && { bash -n "$f" || fail "bash -n $f"; }
done
echo "ok: bash -n on every job script"

if ! cluster_install; then echo "skipped: cannot install Slurm here"; exit 77; fi
rm -rf "$work"; mkdir -p "$work"
cluster_start "$work/cluster" || fail "the test cluster did not start"
echo "ok: cluster up ($(sinfo -h -o '%N %c CPUs %t'))"

export TESSERA="$build/bin/tessera" TESSERA_HOME="$repo"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
cd "$work" || exit 1
script="$repo/jobscripts/slurm/nbody-cpu.sbatch"
decks="$repo/tests/slurm/decks"

# 1. A plain run through srun --mpi=pmix (or mpirun): COMPLETED, exit 0, snapshots readable.
id=$(submit_wait 180 --export=ALL,RUN_DIR="$work/short" "$script" "$decks/nbody_short.toml") || fail "short job timed out"
[ "$(job_state "$id")" = COMPLETED ] || fail "short job: state $(job_state "$id")"
[ "$(job_exit "$id")" = 0:0 ] || fail "short job: exit $(job_exit "$id")"
"$python" - "$work/short" <<'PY' || fail "short job: output check"
import glob, sys, h5py
run = sys.argv[1]
snaps = sorted(glob.glob(run + "/snapshot_*.h5"))
assert len(snaps) == 3, snaps
with h5py.File(snaps[-1]) as f:
    h = f["Header"].attrs
    assert int(h["NumPart_Total"][1]) == 256, h["NumPart_Total"]
    assert abs(float(h["Time"]) - 0.4) < 1e-9, h["Time"]
    assert f["PartType1/Coordinates"].shape == (256, 3)
assert glob.glob(run + "/checkpoints/checkpoint_00000040.h5")
print("ok: short job output:", len(snaps), "snapshots, 256 bodies at t = 0.4")
PY

# 1a. RUN_DIR's default: two decks through one script, no RUN_DIR given, write to two
#     directories, run-<job name>-<deck name>-<job id> in the submit directory (here $work).
cp "$decks/nbody_short.toml" "$work/nbody_other.toml"
a=$(submit_wait 180 "$script" "$decks/nbody_short.toml") || fail "default RUN_DIR: first job timed out"
b=$(submit_wait 180 "$script" "$work/nbody_other.toml") || fail "default RUN_DIR: second job timed out"
for job in "$a:nbody_short" "$b:nbody_other"; do
  jid=${job%%:*} name=${job#*:}
  [ "$(job_state "$jid")" = COMPLETED ] || fail "default RUN_DIR: job $jid state $(job_state "$jid")"
  ls "$work/run-nbody-cpu-$name-$jid"/snapshot_*.h5 >/dev/null 2>&1 ||
    fail "default RUN_DIR: job $jid wrote no snapshots to run-nbody-cpu-$name-$jid ($(ls -d "$work"/run-* 2>/dev/null))"
done
echo "ok: two decks, one script, default RUN_DIR: run-nbody-cpu-nbody_short-$a and run-nbody-cpu-nbody_other-$b"

# 1b. The other solvers' CPU scripts, shortened with --set: COMPLETED, exit 0, HDF5 output.
run_cpu_script() {  # solver output-file-glob dataset tessera-options...
  local solver=$1 file=$2 dataset=$3; shift 3
  local id
  id=$(submit_wait 240 --export=ALL,RUN_DIR="$work/$solver" --output="$work/$solver-%j.out" \
         "$repo/jobscripts/slurm/$solver-cpu.sbatch" "" "$@") || fail "$solver job timed out"
  [ "$(job_state "$id")" = COMPLETED ] || fail "$solver job: state $(job_state "$id")"
  [ "$(job_exit "$id")" = 0:0 ] || fail "$solver job: exit $(job_exit "$id")"
  "$python" -c "import glob, h5py, sys; f = sorted(glob.glob('$work/$solver/$file'))[-1]; d = h5py.File(f)['$dataset']; \
print('ok: $solver-cpu.sbatch ->', f.split('/')[-1], '$dataset', d.shape)" || fail "$solver job: no $file with $dataset"
}
run_cpu_script fdtd probes.h5 /probes --set run.steps=40
run_cpu_script scan scan.h5 /scan --set run.steps=1 --set scan.input.length=100003 --set output.at_end=true
run_cpu_script bfs bfs.h5 /searches --set bfs.graph.scale=10
run_cpu_script spmv spmv.h5 /x --set spmv.matrix.n=12

# 2. A bad deck fails the job with tessera's exit code 2 and its message.
id=$(submit_wait 120 --export=ALL,RUN_DIR="$work/bad" --output="$work/bad-%j.out" "$script" "$decks/bad.toml") ||
  fail "bad job timed out"
[ "$(job_state "$id")" = FAILED ] || fail "bad job: state $(job_state "$id")"
[ "$(job_exit "$id")" = 2:0 ] || fail "bad job: exit $(job_exit "$id")"
grep -q -E "nbody.dt = -1(.0)? is out of range" "$work"/bad-"$id".out || fail "bad job: message missing"
echo "ok: bad deck -> FAILED, exit 2, message in the job log"

# 3. The time limit: 2 minutes with USR1 60 s before it. Slurm sends the warning at its first
#    time-limit check (every 30 s) once end - 60 s - 30 s has passed, so 30-60 s after the start:
#    never in the first seconds, where a signal can reach the job before its batch shell runs and
#    be lost (seen on CI with --time=1 and USR1@45). The job must checkpoint, exit cleanly and
#    resubmit itself; the second job (another job id, the script's own time limit) continues from
#    the checkpoint to the end in the first job's default RUN_DIR, which the resubmission passes on.
id=$(submit_wait 200 --time=2 --signal=B:USR1@60 --export=ALL,RESUBMIT=1 \
       --output="$work/long-%j.out" "$script" "$decks/nbody_long.toml") || fail "long job timed out"
long="$work/run-nbody-cpu-nbody_long-$id"
[ "$(job_state "$id")" = COMPLETED ] || fail "long job: state $(job_state "$id") (killed at the limit?)"
grep -q "time-limit signal" "$work/long-$id.out" || fail "long job: no signal seen"
ls "$long"/checkpoints/checkpoint_*.h5 >/dev/null 2>&1 || fail "long job: no checkpoint written in $long"
next=$(squeue -h -o '%i' -n nbody-cpu | head -1)
[ -n "$next" ] || next=$(scontrol show jobs | sed -n 's/^JobId=\([0-9]*\) JobName=nbody-cpu.*/\1/p' | sort -n | tail -1)
[ -n "$next" ] && [ "$next" != "$id" ] || fail "long job: not resubmitted"
t=0; while [ $t -lt 480 ]; do
  case "$(job_state "$next")" in COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY) break ;; esac
  sleep 2; t=$((t + 2))
done
[ "$(job_state "$next")" = COMPLETED ] || fail "resubmitted job $next: state $(job_state "$next")"
grep -q "continuing from the newest checkpoint in $long/checkpoints" "$work/nbody-cpu-$next.out" ||
  fail "resubmitted job did not restart in $long"
"$python" - "$long" <<'PY' || fail "long run output check"
import glob, sys, h5py
snaps = sorted(glob.glob(sys.argv[1] + "/snapshot_*.h5"))
with h5py.File(snaps[-1]) as f:
    t = float(f["Header"].attrs["Time"])
assert abs(t - 1000.0) < 1e-6, t
print(f"ok: time limit -> checkpoint -> resubmitted job reached t = {t}")
PY
echo "all slurm job-script checks passed"
