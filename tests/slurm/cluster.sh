# A throw-away one-node Slurm cluster on localhost, for tests. Source it, then:
#   cluster_start DIR     installs slurm + munge if missing (Debian, as root), writes a minimal
#                         slurm.conf in DIR, starts munged, slurmctld and slurmd on free ports
#   cluster_stop          stops the daemons this shell started (also on EXIT via trap)
#   submit_wait SCRIPT ARGS...   sbatch --wait with a bounded time; prints the job id
#   job_state ID          COMPLETED, FAILED, TIMEOUT, ... (from scontrol)
# Everything lives in DIR; nothing outside it is touched but the installed packages.
set -u

_slurm_pkgs="slurmctld slurmd slurm-client munge"

cluster_install() {
  local missing=()
  for p in $_slurm_pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  ((${#missing[@]} == 0)) && return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "slurm test: needs root to install ${missing[*]}" >&2
    return 1
  fi
  echo "slurm test: installing ${missing[*]}"
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
}

_free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

cluster_start() {
  CLUSTER_DIR=$1
  cluster_install || return 1
  mkdir -p "$CLUSTER_DIR"/{state,spool,log}
  local host cpus mem
  host=$(hostname -s)
  cpus=$(nproc)
  mem=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 / 2 ))
  dd if=/dev/urandom of="$CLUSTER_DIR/munge.key" bs=1024 count=1 status=none
  chmod 400 "$CLUSTER_DIR/munge.key"
  munged --key-file="$CLUSTER_DIR/munge.key" --socket="$CLUSTER_DIR/munge.socket" \
         --pid-file="$CLUSTER_DIR/munged.pid" --log-file="$CLUSTER_DIR/log/munged.log" \
         --seed-file="$CLUSTER_DIR/munge.seed" --force || { echo "munged failed to start" >&2; return 1; }
  cat > "$CLUSTER_DIR/slurm.conf" <<CONF
ClusterName=tessera-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$(_free_port)
SlurmdPort=$(_free_port)
AuthType=auth/munge
AuthInfo=socket=$CLUSTER_DIR/munge.socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$CLUSTER_DIR/state
SlurmdSpoolDir=$CLUSTER_DIR/spool
SlurmctldPidFile=$CLUSTER_DIR/slurmctld.pid
SlurmdPidFile=$CLUSTER_DIR/slurmd.pid
SlurmctldLogFile=$CLUSTER_DIR/log/slurmctld.log
SlurmdLogFile=$CLUSTER_DIR/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MinJobAge=600
KillWait=10
InactiveLimit=0
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
  export SLURM_CONF=$CLUSTER_DIR/slurm.conf
  slurmctld -f "$SLURM_CONF" || { echo "slurmctld failed to start" >&2; cat "$CLUSTER_DIR/log/slurmctld.log" >&2; return 1; }
  slurmd -f "$SLURM_CONF" || { echo "slurmd failed to start" >&2; cat "$CLUSTER_DIR/log/slurmd.log" >&2; return 1; }
  local i
  for i in $(seq 1 60); do
    sinfo -h -o '%t' 2>/dev/null | grep -q -E '^(idle|mix|alloc)' && return 0
    sleep 1
  done
  echo "slurm node never became idle:" >&2
  sinfo >&2
  tail -20 "$CLUSTER_DIR/log/slurmctld.log" "$CLUSTER_DIR/log/slurmd.log" >&2
  return 1
}

cluster_stop() {
  [ -n "${CLUSTER_DIR:-}" ] || return 0
  local f pid
  scancel --quiet --user=root 2>/dev/null || true
  for f in slurmd slurmctld munged; do
    [ -f "$CLUSTER_DIR/$f.pid" ] || continue
    pid=$(cat "$CLUSTER_DIR/$f.pid")
    kill "$pid" 2>/dev/null
    for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -9 "$pid" 2>/dev/null || true
  done
  CLUSTER_DIR=
}

# submit_wait TIMEOUT_S SBATCH_ARGS... : submits, waits for the end (bounded), echoes the job id.
submit_wait() {
  local limit=$1; shift
  local id
  id=$(sbatch --parsable "$@") || return 1
  local t=0
  while [ $t -lt "$limit" ]; do
    case "$(job_state "$id")" in
      PENDING|RUNNING|CONFIGURING|COMPLETING|SUSPENDED|"") sleep 1; t=$((t + 1)) ;;
      *) echo "$id"; return 0 ;;
    esac
  done
  echo "job $id did not finish within $limit s" >&2
  scancel "$id" 2>/dev/null
  echo "$id"
  return 1
}

job_state() { scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -1; }
job_exit() { scontrol show job "$1" 2>/dev/null | sed -n 's/.*ExitCode=\([0-9:]*\).*/\1/p' | head -1; }
