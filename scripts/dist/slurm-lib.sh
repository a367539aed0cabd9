# shellcheck shell=bash
# A throwaway single-node Slurm (Debian 12's slurm-wlm 22.05 and munge), every file in one temporary folder.
# Sourced by scripts/dist/test-dist.sh; needs root (slurmd runs jobs as the submitting user, root here).
#
#   slurm_up DIR    write the configs under DIR, start munged, slurmctld and slurmd, wait until the node is idle;
#                   exports SLURM_CONF so sbatch/squeue/scontrol talk to this cluster and no other
#   slurm_down      cancel every job, stop the daemons we started (by pid), check that nothing of ours is left
#
# Isolation from any system Slurm or munge on the machine: our own munge key and socket (AuthInfo=socket=...),
# our own free TCP ports, our own state/spool/log/pid paths, and clients that only see $SLURM_CONF. No cgroups:
# proctrack/linuxproc and task/none. Every daemon and every job carries DIST_RUN_TOKEN in its environment (the
# harness itself does not), so slurm_down can find leftovers, slurmstepd included, and stop them by pid.

SLURM_DIR=""
SLURM_PIDS=()   # munged, slurmctld, slurmd: started in the foreground as our children
DIST_RUN_TOKEN="readback-dist-$$-$RANDOM$RANDOM"

slurm_log() { echo "dist: $*" >&2; }

# Two free TCP ports on 127.0.0.1 (asked of the kernel, so they cannot clash with a system slurmctld/slurmd).
slurm_free_ports() {
  python3 - <<'EOF'
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))
EOF
}

slurm_write_conf() {
  local dir=$1 node=$2 ctld_port=$3 slurmd_port=$4
  cat >"$dir/etc/slurm.conf" <<EOF
# Throwaway single-node cluster written by scripts/dist/slurm-lib.sh; removed when the test ends.
ClusterName=readback-dist
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
# cred_expire: a requeued job waits this long before it may start again (default 120 s; 5 is the floor).
AuthInfo=socket=$dir/munge-run/munge.socket,cred_expire=5
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
SchedulerType=sched/builtin
ReturnToService=2
JobRequeue=1
MinJobAge=600
KillWait=5
InactiveLimit=0
NodeName=$node NodeAddr=127.0.0.1 CPUs=2 RealMemory=1000 State=UNKNOWN
PartitionName=dist Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
}

# Starts one daemon in the foreground as our background child; remembers its pid.
slurm_spawn() {
  local name=$1
  shift
  env DIST_RUN_TOKEN="$DIST_RUN_TOKEN" "$@" >"$SLURM_DIR/log/$name.out" 2>&1 &
  SLURM_PIDS+=($!)
  slurm_log "started $name (pid $!)"
}

# Polls CMD (a shell snippet) every 0.5 s until it succeeds; fails after SECONDS with WHAT in the message.
slurm_wait_for() {
  local seconds=$1 what=$2 cmd=$3 i
  for ((i = 0; i < seconds * 2; i++)); do
    if eval "$cmd" >/dev/null 2>&1; then return 0; fi
    sleep 0.5
  done
  slurm_log "timed out after ${seconds}s waiting for $what"
  return 1
}

slurm_up() {
  SLURM_DIR=$1
  local node ports
  node=$(hostname -s)
  ports=$(slurm_free_ports)
  # munged wants a+x on every directory above its socket (the caller's folders included) and a key only its
  # user can read.
  mkdir -p "$SLURM_DIR"
  chmod 755 "$SLURM_DIR"
  mkdir -p "$SLURM_DIR"/{etc,state,run,log,munge-key,munge-run} "$SLURM_DIR/spool/$node"
  chmod 700 "$SLURM_DIR/munge-key"
  dd if=/dev/urandom of="$SLURM_DIR/munge-key/munge.key" bs=1024 count=1 status=none
  chmod 400 "$SLURM_DIR/munge-key/munge.key"
  # shellcheck disable=SC2086
  slurm_write_conf "$SLURM_DIR" "$node" $ports
  export SLURM_CONF=$SLURM_DIR/etc/slurm.conf
  slurm_log "cluster in $SLURM_DIR: node $node, slurmctld/slurmd ports $ports"

  slurm_spawn munged munged --foreground --socket="$SLURM_DIR/munge-run/munge.socket" \
    --key-file="$SLURM_DIR/munge-key/munge.key" --log-file="$SLURM_DIR/log/munged.log" \
    --pid-file="$SLURM_DIR/munge-run/munged.pid" --seed-file="$SLURM_DIR/munge-key/munged.seed"
  slurm_wait_for 10 "munged" "munge -S '$SLURM_DIR/munge-run/munge.socket' -n" || return 1
  slurm_spawn slurmctld slurmctld -D -f "$SLURM_CONF"
  slurm_wait_for 30 "slurmctld" "scontrol ping | grep -q UP" || return 1
  slurm_spawn slurmd slurmd -D -f "$SLURM_CONF"
  slurm_wait_for 60 "node $node idle" "[ \"\$(sinfo -h -n '$node' -o %t)\" = idle ]" || {
    sinfo -N -l >&2
    return 1
  }
  slurm_log "node $node idle"
}

# Pids (not ours: the harness shell never carries the token) whose environment holds DIST_RUN_TOKEN.
slurm_token_pids() {
  grep -lzxF "DIST_RUN_TOKEN=$DIST_RUN_TOKEN" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3 || true
}

# Token pids other than our daemons and their children (slurmctld's slurmscriptd): job processes, slurmstepd.
slurm_job_pids() {
  local pid ppid daemons=" ${SLURM_PIDS[*]} "
  for pid in $(slurm_token_pids); do
    ppid=$(ps -o ppid= -p "$pid") || continue
    ppid=${ppid// /}
    [[ $daemons == *" $pid "* || $daemons == *" $ppid "* ]] || echo "$pid"
  done
}

slurm_down() {
  local pid left i t ids
  [ -n "$SLURM_DIR" ] || return 0
  # Every job this throwaway controller knows is ours: cancel them all, and let slurmd tear their steps down
  # while it still runs (a slurmstepd outlives slurmd otherwise).
  if [ -n "${SLURM_CONF:-}" ] && kill -0 "${SLURM_PIDS[1]:-0}" 2>/dev/null; then
    ids=$(squeue -h -o %A 2>/dev/null | sort -u | paste -sd,)
    [ -z "$ids" ] || scancel "$ids" || true
    for ((i = 0; i < 30; i++)); do
      [ -z "$(squeue -h -o %A 2>/dev/null)" ] && [ -z "$(slurm_job_pids)" ] && break
      sleep 0.5
    done
  fi
  # In reverse order of start (slurmd, slurmctld, munged), each gone before the next is asked.
  for ((i = ${#SLURM_PIDS[@]} - 1; i >= 0; i--)); do
    pid=${SLURM_PIDS[i]}
    kill -TERM "$pid" 2>/dev/null || true
    for ((t = 0; t < 40; t++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    if kill -0 "$pid" 2>/dev/null; then
      slurm_log "pid $pid ignored SIGTERM for 10 s; SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
  done
  SLURM_PIDS=()
  # Anything else of ours (a slurmstepd or job process orphaned by a crash) is stopped by pid and reported.
  left=$(slurm_token_pids)
  if [ -n "$left" ]; then
    slurm_log "left behind, now killed: $(echo "$left" | tr '\n' ' ')"
    ps -o pid,ppid,args -p "$(echo "$left" | paste -sd,)" >&2 || true
    # shellcheck disable=SC2086
    kill -KILL $left 2>/dev/null || true
    sleep 0.5
  fi
  left=$(slurm_token_pids)
  if [ -n "$left" ]; then
    slurm_log "processes still alive after cleanup: $left"
    return 1
  fi
  slurm_log "daemons stopped; no process of this run is left"
}

# Submits a batch job carrying the run's token (so slurm_down can find its processes); echoes its id.
# Arguments as for sbatch (no --parsable).
slurm_submit() {
  local id
  id=$(env DIST_RUN_TOKEN="$DIST_RUN_TOKEN" sbatch --parsable "$@") || return 1
  echo "${id%%;*}"
}

# One line per array task of JOBID: "TASK STATE EXITCODE", from scontrol (no accounting database here).
slurm_array_states() {
  scontrol -o show job "$1" | tr ' ' '\n' | awk -F= '
    $1 == "ArrayTaskId" { task = $2 }
    $1 == "JobState" { state = $2 }
    $1 == "ExitCode" { print task, state, $2 }'
}
