#!/usr/bin/env bash
# The batch script of every job test-dist.sh submits: `job.sh HOOK` runs the shell snippet held in the variable
# named HOOK (DIST_TASK for an array task, DIST_MERGE for the merge), with Slurm's own variables set
# (SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT, SLURM_RESTART_COUNT, ...) and the harness's DIST_* exported.
set -euo pipefail
hook=$1
task=${SLURM_ARRAY_TASK_ID:-merge}
# The kill test stops this process group by the pid written here (the batch script leads its process group).
echo $$ >"$DIST_PIDS/$task.pid"
echo "job.sh: $hook, task $task of ${SLURM_ARRAY_TASK_COUNT:-1}, attempt ${SLURM_RESTART_COUNT:-0}, job ${SLURM_JOB_ID}"
bash -e -o pipefail -c "${!hook}"
echo "job.sh: $hook, task $task done"
