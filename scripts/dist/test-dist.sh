#!/usr/bin/env bash
# shellcheck disable=SC2016 # hooks are single-quoted: they expand when they run
# make test-dist: a real Slurm job array over a generated folder, on a throwaway single-node cluster (as root).
#
#   1. start munged, slurmctld and slurmd from Debian's packages, every file in one temporary folder
#      (scripts/dist/slurm-lib.sh); the daemons are stopped by pid on any exit, and nothing of ours may be left;
#   2. DIST_PREPARE makes the source folder $DIST_SRC; DIST_REFERENCE runs one unsharded pass into $DIST_REF;
#   3. run "clean": `sbatch --array=0-(N-1)` of DIST_TASK (each task sees SLURM_ARRAY_TASK_ID/_COUNT, so
#      `--shard auto` works), plus a merge job (DIST_MERGE) held by `--dependency=afterok` on every task;
#      then DIST_CHECK compares the merged report with the reference, file by file;
#   4. a merge of the clean run's reports without one shard must be refused (exit 2);
#   5. run "kill": the same, but task DIST_KILL_TASK is killed mid-run (SIGKILL to its process group, as a
#      crash or the OOM killer would), must end FAILED, is requeued with `scontrol requeue`, the merge's
#      dependency is re-armed (Slurm marks it never-satisfiable once a task fails), and the merge must again be
#      complete and equal to the reference; DIST_CHECK_KILL may check the shard resumed rather than restarted.
#
# Hooks, bash snippets run with `bash -e -o pipefail -c`: DIST_PREPARE, DIST_REFERENCE, DIST_TASK, DIST_MERGE,
# DIST_CHECK (exit 0 when the merged report equals the reference), DIST_KILL_WHEN (a predicate: the kill waits
# until it holds) and DIST_CHECK_KILL (optional). Set any of them in the environment, or on make's command line
# (`make test-dist DIST_SHARDS=3`). They see these exported variables:
#   DIST_SRC      the source folder (DIST_PREPARE creates it)     DIST_WORK   the run's temporary folder
#   DIST_REF      the unsharded run's report folder                DIST_SHARDS the number of array tasks (N)
#   DIST_OUT      this run's shared output folder (all shards)     DIST_REPORTS  this run's shard reports: one
#   DIST_MERGED   this run's merged report folder                     folder per task, $DIST_REPORTS/<task>
#   DIST_BIN      this folder (scripts/dist)                       DIST_KILL_TASK the task the kill run stops
# The preset `readback` (the default) runs Readback itself: .build/release/readback, or $READBACK.
#
# Knobs: DIST_SHARDS (4), DIST_KILL_TASK (1), DIST_TIMEOUT seconds per wait (300), DIST_KEEP=1 keeps the folder,
# DIST_COPIES (8): how many copies of Corpus/dng (19 DNGs) the source folder holds, under distinct folders.
set -euo pipefail
cd "$(dirname "$0")/../.."
export DIST_BIN=$PWD/scripts/dist
# shellcheck source=scripts/dist/slurm-lib.sh
source "$DIST_BIN/slurm-lib.sh"

[ "$(id -u)" = 0 ] || { echo "test-dist: runs a throwaway Slurm as root; run it as root (CI does)" >&2; exit 2; }
export DIST_SHARDS=${DIST_SHARDS:-4}
export DIST_KILL_TASK=${DIST_KILL_TASK:-1}
DIST_TIMEOUT=${DIST_TIMEOUT:-300}
DIST_PRESET=${DIST_PRESET:-readback}
export DIST_COPIES=${DIST_COPIES:-8} DIST_CORPUS=$PWD/Corpus/dng

# Hooks are single-quoted on purpose: their $VARIABLES expand when the hook runs (in the job), not here.
# default NAME SNIPPET: NAME keeps the value the caller exported (even an empty one), else gets SNIPPET.
default() { [ -n "${!1+set}" ] || printf -v "$1" '%s' "$2"; }

case $DIST_PRESET in
  readback)
    # Exit 1 of convert/audit is a result (a file kept its original, the gate failed), not a broken task: the
    # merge applies the gate. Each task gets one CPU from Slurm, so --jobs 1.
    export READBACK=${READBACK:-$PWD/.build/release/readback}
    [ -x "$READBACK" ] || { echo "test-dist: $READBACK is not built (make release)" >&2; exit 2; }
    # DIST_COPIES copies of the committed corpus under distinct folders (non-ASCII and spaces among them): about
    # 38 files per task with the defaults, so a task can be killed mid-run; plus two truncated DNGs that fail to
    # convert, so some verdicts are "fail" (output.missing) and the gate fails in every run alike.
    default DIST_PREPARE 'names=(été "Ünï ✓" sub "a b"); for ((c = 0; c < DIST_COPIES; c++)); do d="$DIST_SRC/set-$c/${names[c % 4]}"; mkdir -p "$d"; cp "$DIST_CORPUS"/*.dng "$d/"; done; for b in broken-1 "set-1/broken 2"; do head -c 30000 "$DIST_CORPUS/chart-rggb-12bit-o1.dng" >"$DIST_SRC/$b.dng"; done; echo "$(find "$DIST_SRC" -name "*.dng" | wc -l) DNGs in $DIST_SRC"'
    default DIST_REFERENCE '{ "$READBACK" convert "$DIST_SRC" --out "$DIST_WORK/ref-out" --quiet || [ $? = 1 ]; } && { "$READBACK" audit --sources "$DIST_SRC" --outputs "$DIST_WORK/ref-out" --report "$DIST_REF" --no-history --quiet || [ $? = 1 ]; }'
    # convert prints a line per finished file into the task's log (the kill waits for them; the requeued attempt
    # must say it skipped them).
    default DIST_TASK '{ "$READBACK" convert "$DIST_SRC" --out "$DIST_OUT" --shard auto --jobs 1 || [ $? = 1 ]; } && { "$READBACK" audit --sources "$DIST_SRC" --outputs "$DIST_OUT" --shard auto --jobs 1 --report "$DIST_REPORTS/$SLURM_ARRAY_TASK_ID" --no-history --quiet || [ $? = 1 ]; }'
    # Exit 2 must stay 2: the partial-merge check expects it.
    default DIST_MERGE '"$READBACK" merge "$DIST_REPORTS"/* --report "$DIST_MERGED" --history-db "$DIST_WORK/history.db" --quiet || { rc=$?; [ $rc = 1 ] || exit $rc; }'
    # Kill once the task has finished two files (lines "clean …", "kept …" or "failed …" in its log).
    default DIST_KILL_WHEN '[ "$(grep -cE "^(clean|kept|failed) " "$DIST_OUT/../logs/task-$DIST_KILL_TASK.out")" -ge 2 ]'
    # The requeued attempt resumed its shard: it skipped what the killed one had finished, converted the rest,
    # and no other shard's convert ran twice.
    default DIST_CHECK_KILL '
      log="$DIST_OUT/../logs/task-$DIST_KILL_TASK.out"
      second=$(awk "/attempt 1,/ { on = 1 } on" "$log")
      skipped=$(printf "%s\n" "$second" | sed -n "s/^skipping \([0-9]*\) file(s) already converted and unchanged$/\1/p")
      [ -n "$skipped" ] && [ "$skipped" -ge 2 ] || { echo "the requeued task did not skip what it had finished:"; printf "%s\n" "$second" | head -n 5; exit 1; }
      redone=$(printf "%s\n" "$second" | grep -cE "^(clean|kept|failed) " || true)
      echo "task $DIST_KILL_TASK resumed its shard: skipped $skipped finished file(s), converted $redone"
      for t in $(seq 0 $((DIST_SHARDS - 1))); do
        [ "$t" = "$DIST_KILL_TASK" ] || [ "$(grep -c "attempt 1," "$DIST_OUT/../logs/task-$t.out")" = 0 ] || { echo "task $t ran twice"; exit 1; }
      done'
    ;;
  *) echo "test-dist: DIST_PRESET is readback, not '$DIST_PRESET'" >&2; exit 2 ;;
esac
default DIST_CHECK 'python3 "$DIST_BIN/compare-verdicts.py" "$DIST_MERGED/report.json" "$DIST_REF/report.json"'
export DIST_PREPARE DIST_REFERENCE DIST_TASK DIST_MERGE DIST_CHECK DIST_KILL_WHEN DIST_CHECK_KILL

DIST_WORK=$(mktemp -d "${TMPDIR:-/tmp}/readback-dist.XXXXXX")
chmod 755 "$DIST_WORK" # munged's socket lives below it
export DIST_WORK DIST_SRC=$DIST_WORK/src DIST_REF=$DIST_WORK/ref
STARTED=$SECONDS
PASSED=0

finish() {
  local rc=$?
  trap - EXIT INT TERM
  if [ "$PASSED" != 1 ] && [ -d "$DIST_WORK/cluster/log" ]; then
    for log in "$DIST_WORK"/cluster/log/slurmctld.log "$DIST_WORK"/cluster/log/slurmd.log "$DIST_WORK"/*/logs/*; do
      [ -f "$log" ] && { echo "---- tail $log" >&2; tail -n 15 "$log" >&2; }
    done
  fi
  slurm_down || rc=1
  if [ "$PASSED" = 1 ] && [ "$rc" = 0 ] && [ "${DIST_KEEP:-0}" != 1 ]; then rm -rf "$DIST_WORK"; else
    echo "test-dist: kept $DIST_WORK" >&2
  fi
  exit "$rc"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

hook() { # hook NAME: runs the snippet in $NAME, says how long it took
  local t=$SECONDS
  bash -e -o pipefail -c "${!1}" || { slurm_log "$1 failed (exit $?): ${!1}"; return 1; }
  slurm_log "$1 done in $((SECONDS - t)) s"
}

# Polls until none of the job ids is in the queue.
wait_gone() {
  local ids=$1 i
  for ((i = 0; i < DIST_TIMEOUT * 2; i++)); do
    [ -z "$(squeue -h -j "$ids" -o %i 2>/dev/null)" ] && return 0
    sleep 0.5
  done
  slurm_log "jobs $ids still queued after ${DIST_TIMEOUT}s:"
  squeue -j "$ids" >&2
  return 1
}

# State of one array task ("RUNNING", "FAILED", ...).
task_state() { slurm_array_states "$1" | awk -v t="$2" '$1 == t { print $2 }'; }

# Kills array task $2 of job $1 mid-run, requeues it and re-arms the merge job $3's dependency $4.
kill_and_requeue() {
  local job=$1 task=$2 merge=$3 deps=$4 pid state i
  slurm_wait_for "$DIST_TIMEOUT" "task $task running" "[ \"\$(task_state $job $task)\" = RUNNING ] && [ -s '$DIST_PIDS/$task.pid' ]"
  slurm_wait_for "$DIST_TIMEOUT" "task $task progress (DIST_KILL_WHEN)" "bash -c \"\$DIST_KILL_WHEN\""
  pid=$(cat "$DIST_PIDS/$task.pid")
  state=$(task_state "$job" "$task")
  [ "$state" = RUNNING ] || { slurm_log "task $task was $state before the kill: not mid-run (more work per task?)"; return 1; }
  slurm_log "killing task $task mid-run: SIGKILL to process group $pid"
  kill -KILL -- "-$pid"
  for ((i = 0; i < 60; i++)); do
    state=$(task_state "$job" "$task")
    [ "$state" != RUNNING ] && [ "$state" != COMPLETING ] && break
    sleep 0.5
  done
  [ "$state" = FAILED ] || { slurm_log "killed task $task ended $state, expected FAILED"; return 1; }
  state=$(scontrol -o show job "$merge" | grep -o 'JobState=[^ ]*')
  [ "$state" = JobState=PENDING ] || { slurm_log "merge job $merge is $state after a task failed"; return 1; }
  slurm_log "task $task FAILED; merge job $merge still PENDING"
  scontrol requeue "${job}_$task"
  scontrol update JobId="$merge" Dependency="$deps"
  slurm_log "requeued ${job}_$task; merge dependency re-armed"
}

# dist_run NAME KILL: one array job of DIST_TASK plus its merge job; checks the result against the reference.
dist_run() {
  local name=$1 kill=$2 run=$DIST_WORK/$1 t=$SECONDS job merge deps k bad last_end merge_start
  export DIST_OUT=$run/out DIST_REPORTS=$run/reports DIST_MERGED=$run/merged DIST_PIDS=$run/pids
  mkdir -p "$DIST_OUT" "$DIST_REPORTS" "$DIST_PIDS" "$run/logs"
  job=$(slurm_submit --array="0-$((DIST_SHARDS - 1))" --job-name="dist-$name" --open-mode=append \
    --output="$run/logs/task-%a.out" "$DIST_BIN/job.sh" DIST_TASK)
  deps=afterok
  for ((k = 0; k < DIST_SHARDS; k++)); do deps+=":${job}_$k"; done
  merge=$(slurm_submit --dependency="$deps" --job-name="dist-$name-merge" --output="$run/logs/merge.out" \
    "$DIST_BIN/job.sh" DIST_MERGE)
  slurm_log "run $name: array job $job ($DIST_SHARDS tasks), merge job $merge ($deps)"
  if [ "$kill" = 1 ]; then kill_and_requeue "$job" "$DIST_KILL_TASK" "$merge" "$deps"; fi
  wait_gone "$job,$merge"
  bad=$(slurm_array_states "$job" | awk '$2 != "COMPLETED" || $3 != "0:0"')
  [ -z "$bad" ] || { slurm_log "run $name: tasks not completed: $bad"; return 1; }
  [ "$(scontrol -o show job "$merge" | grep -o 'JobState=[^ ]*')" = JobState=COMPLETED ] ||
    { slurm_log "run $name: merge job $merge did not complete"; return 1; }
  # The merge started only after the last task ended (the requeued one included): ISO times compare as text.
  last_end=$(scontrol -o show job "$job" | grep -o 'EndTime=[^ ]*' | cut -d= -f2 | sort | tail -n 1)
  merge_start=$(scontrol -o show job "$merge" | grep -o 'StartTime=[^ ]*' | cut -d= -f2)
  [[ ! "$merge_start" < "$last_end" ]] || { slurm_log "merge started $merge_start, before a task ended $last_end"; return 1; }
  slurm_log "run $name: $DIST_SHARDS tasks and the merge COMPLETED in $((SECONDS - t)) s (last task end $last_end, merge start $merge_start)"
  hook DIST_CHECK
  if [ "$kill" = 1 ]; then
    grep -q "attempt 1" "$run/logs/task-$DIST_KILL_TASK.out" || { slurm_log "task $DIST_KILL_TASK never reran"; return 1; }
    if [ -n "$DIST_CHECK_KILL" ]; then hook DIST_CHECK_KILL; fi
  fi
}

# A merge of the clean run's reports without shard DIST_KILL_TASK must be refused with exit 2.
partial_merge_refused() {
  local partial=$DIST_WORK/partial rc=0
  mkdir -p "$partial/reports"
  cp -r "$DIST_WORK/clean/reports/." "$partial/reports/"
  rm -rf "${partial:?}/reports/$DIST_KILL_TASK"
  DIST_REPORTS=$partial/reports DIST_MERGED=$partial/merged bash -e -o pipefail -c "$DIST_MERGE" || rc=$?
  [ "$rc" = 2 ] || { slurm_log "a merge without shard $DIST_KILL_TASK exited $rc, expected 2"; return 1; }
  slurm_log "a merge without shard $DIST_KILL_TASK is refused (exit 2)"
}

slurm_up "$DIST_WORK/cluster"
hook DIST_PREPARE
hook DIST_REFERENCE
dist_run clean 0
partial_merge_refused
dist_run kill 1
PASSED=1
echo "test-dist: passed in $((SECONDS - STARTED)) s ($DIST_PRESET, $DIST_SHARDS shards, Slurm $(sinfo -V | cut -d' ' -f2))"
