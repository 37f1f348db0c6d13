#!/usr/bin/env bash
# Runs one tessera deck inside a Slurm allocation; the per-solver batch scripts call this.
#
#   tessera-job.sh DECK [extra `tessera run` arguments...]
#
# Environment (all optional):
#   TESSERA_HOME   the tessera checkout, or an install's share/tessera, the batch scripts take this
#                  script and the default decks from (default: $SLURM_SUBMIT_DIR when it is a
#                  checkout, else the share/tessera of the tessera on PATH)
#   TESSERA        the tessera executable (default: tessera on PATH, else PREFIX/bin/tessera of
#                  the install this script is in, else build/bin/tessera of its checkout)
#   RUN_DIR        output directory for this run, passed to tessera as --set run.output_dir=...
#                  (default: $SLURM_SUBMIT_DIR/run-<job name>-<deck name>-<job id>, so that two
#                  decks, or two submissions of one deck, never share a directory). To continue
#                  an earlier job's run in a new job, give its directory: RUN_DIR=run-... sbatch ...
#                  (a resubmission with RESUBMIT=1 passes it on by itself)
#   GPU_BIND       per-task (default): the batch script asked for --gpus-per-task=1, so each rank
#                  sees exactly one GPU; none: --gpu-bind=none, every rank sees all of its node's
#                  GPUs and tessera picks local_rank % GPUs (needed for CUDA IPC between ranks)
#   LAUNCHER       auto (default: srun --mpi=pmix when Slurm has PMIx, else mpirun), srun, mpirun
#   RESTART        auto (default: continue from the newest checkpoint in RUN_DIR if there is one),
#                  never (start over: tessera's --overwrite deletes an earlier run's outputs in RUN_DIR)
#   RESUBMIT       1: when a time-limit signal stopped the run, submit this job again (it will
#                  continue from the checkpoint written on the signal); default 0
#
# Time limits: submit with `--signal=B:USR1@120`; Slurm then signals this shell two minutes
# before the limit, the trap below forwards SIGUSR1 to tessera, every rank stops at the next
# step boundary after writing a checkpoint, and the job ends cleanly (and resubmits itself if
# RESUBMIT=1).
set -uo pipefail

deck=${1:?usage: tessera-job.sh DECK [tessera run arguments...]}
shift
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# tessera: on PATH, else the install this script belongs to (PREFIX/share/tessera/jobscripts/slurm),
# else the build tree of the checkout it belongs to.
if [ -z "${TESSERA:-}" ]; then
  TESSERA=$(command -v tessera || true)
  for t in "$here/../../../../bin/tessera" "$here/../../build/bin/tessera"; do
    [ -z "$TESSERA" ] && [ -x "$t" ] && TESSERA=$t
  done
fi
tessera=${TESSERA:-tessera}
deck_name=$(basename "$deck" .toml)
run_dir=${RUN_DIR:-${SLURM_SUBMIT_DIR:-$PWD}/run-${SLURM_JOB_NAME:-tessera}-${deck_name}${SLURM_JOB_ID:+-$SLURM_JOB_ID}}
[ -x "$tessera" ] || { echo "tessera-job: no tessera executable at $tessera (set TESSERA)" >&2; exit 2; }
[ -f "$deck" ] || { echo "tessera-job: no deck at $deck" >&2; exit 2; }

# How to start the ranks.
launcher=${LAUNCHER:-auto}
if [ "$launcher" = auto ]; then
  if srun --mpi=list 2>&1 | grep -q pmix; then launcher=srun; else launcher=mpirun; fi
fi
case "$launcher" in
  srun) cmd=(srun --mpi=pmix) ;;
  mpirun) cmd=(mpirun) ;;  # Open MPI/MPICH read the allocation from Slurm
  *) echo "tessera-job: LAUNCHER must be auto, srun or mpirun" >&2; exit 2 ;;
esac
if [ "${GPU_BIND:-per-task}" = none ] && [ "$launcher" = srun ]; then cmd+=(--gpu-bind=none); fi

# Continue an interrupted run.
args=(run "$deck" --set "run.output_dir=\"$run_dir\"")
if [ "${RESTART:-auto}" = auto ] && ls "$run_dir"/checkpoints/checkpoint_*.h5 >/dev/null 2>&1; then
  args+=(--restart latest)
  echo "tessera-job: continuing from the newest checkpoint in $run_dir/checkpoints"
elif [ "${RESTART:-auto}" = never ]; then
  args+=(--overwrite)
fi
args+=("$@")

echo "tessera-job: $(date -u +%FT%TZ) job ${SLURM_JOB_ID:-?} on ${SLURM_JOB_NUM_NODES:-1} node(s), ${SLURM_NTASKS:-?} task(s): ${cmd[*]} $tessera ${args[*]}"
signalled=0
pid=
forward() {
  signalled=1
  echo "tessera-job: time-limit signal: asking tessera to checkpoint and stop"
  [ -n "$pid" ] && kill -USR1 "$pid" 2>/dev/null
}
trap forward USR1 TERM
"${cmd[@]}" "$tessera" "${args[@]}" &
pid=$!
# A signal that came before tessera started is passed on once it has had time to start.
if [ "$signalled" = 1 ]; then sleep 5; kill -USR1 "$pid" 2>/dev/null; fi
# `wait` returns early when a trapped signal arrives: keep waiting for tessera itself.
while :; do
  wait "$pid"
  rc=$?
  kill -0 "$pid" 2>/dev/null || break
done
echo "tessera-job: tessera exited with $rc"
if [ "$signalled" = 1 ] && [ "$rc" = 0 ] && [ "${RESUBMIT:-0}" = 1 ] && [ -n "${SLURM_JOB_ID:-}" ]; then
  # The batch script and its arguments as submitted (paths without spaces).
  read -r -a again <<< "$(scontrol show job "$SLURM_JOB_ID" | sed -n 's/^ *Command=//p')"
  echo "tessera-job: resubmitting ${again[*]} (RUN_DIR=$run_dir)"
  # The next job has another id: it continues in this job's directory, not in a default of its own.
  RUN_DIR=$run_dir sbatch --export=ALL --dependency=afterany:"$SLURM_JOB_ID" "${again[@]}"
fi
exit "$rc"
