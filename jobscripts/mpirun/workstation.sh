#!/usr/bin/env bash
# Run a deck on a workstation with one or more GPUs: one rank per visible GPU (or 2 CPU ranks
# when there is none). tessera binds rank r to GPU r % GPUs by itself.
#   jobscripts/mpirun/workstation.sh DECK [tessera run options...]
# Examples:
#   jobscripts/mpirun/workstation.sh inputs/nbody/plummer_1m_gpu.toml
#   jobscripts/mpirun/workstation.sh inputs/fdtd/pec_cavity.toml --set run.steps=2000
#   RANKS=2 CUDA_VISIBLE_DEVICES=0,1 jobscripts/mpirun/workstation.sh inputs/bfs/graph500_scale24.toml
#   jobscripts/mpirun/workstation.sh deck.toml --restart latest      # continue after a stop
set -euo pipefail
deck=${1:?usage: workstation.sh DECK [tessera run options...]}
shift
here=$(cd "$(dirname "$0")" && pwd)
# The checkout's build, else the install this script is in (PREFIX/share/tessera/jobscripts/mpirun), else PATH.
tessera=${TESSERA:-}
for t in "$here/../../build/bin/tessera" "$here/../../../../bin/tessera" "$(command -v tessera || true)"; do
  [ -z "$tessera" ] && [ -n "$t" ] && [ -x "$t" ] && tessera=$t
done
[ -n "$tessera" ] || { echo "workstation.sh: no tessera executable (set TESSERA or put tessera on PATH)" >&2; exit 2; }
gpus=$(nvidia-smi -L 2>/dev/null | wc -l || echo 0)
ranks=${RANKS:-$(( gpus > 0 ? gpus : 2 ))}
# A single-user machine: let 2 CPU ranks share fewer cores, and allow running as root.
export OMPI_MCA_rmaps_base_oversubscribe=1
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(( $(nproc) / ranks > 0 ? $(nproc) / ranks : 1 ))}
echo "workstation: $ranks rank(s), $gpus GPU(s), $OMP_NUM_THREADS OpenMP thread(s) per rank"
exec mpirun -np "$ranks" --bind-to none "$tessera" run "$deck" "$@"
