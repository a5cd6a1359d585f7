#!/bin/sh
# Starts a one-node Slurm cluster on this machine, without systemd, everything in one directory
# (the recipe of README "Running tests on a cluster"). Needs root and the Debian packages
# slurmctld slurmd slurm-client munge. Then:  export SLURM_CONF=$DIR/slurm.conf
#
#   scripts/slurm-start.sh [DIR]      # default DIR: $REDUCE_SLURM_DIR or /tmp/reduce-slurm
#   scripts/slurm-stop.sh [DIR]
set -eu
dir=${1:-${REDUCE_SLURM_DIR:-/tmp/reduce-slurm}}
mkdir -p "$dir/state" "$dir/spool"
dir=$(cd "$dir" && pwd)
host=$(hostname -s)
key=/etc/munge/munge.key
[ -r "$key" ] || { echo "slurm-start: $key is missing: apt-get install -y munge" >&2; exit 1; }

if ! [ -S "$dir/munge.sock" ] || ! munge -n --socket="$dir/munge.sock" >/dev/null 2>&1; then
  rm -f "$dir/munge.sock"
  munged -f --socket="$dir/munge.sock" --key-file="$key" --log-file="$dir/munge.log" \
    --pid-file="$dir/munged.pid" --seed-file="$dir/munge.seed"
fi

cat > "$dir/slurm.conf" <<CONF
ClusterName=local
SlurmctldHost=$host(127.0.0.1)
AuthType=auth/munge
AuthInfo=socket=$dir/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
KillWait=2
# schedule every second (default 60): a job submitted while others complete waits for a pass
SchedulerParameters=sched_interval=1,sched_min_interval=0
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
# FORCE: many short test jobs share the cores (most of a reduce test often waits)
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:64
CONF

export SLURM_CONF="$dir/slurm.conf"
[ -f "$dir/slurmctld.pid" ] && kill -0 "$(cat "$dir/slurmctld.pid")" 2>/dev/null || slurmctld -i
[ -f "$dir/slurmd.pid" ] && kill -0 "$(cat "$dir/slurmd.pid")" 2>/dev/null || slurmd

i=0
until [ "$(sinfo -h -o %T 2>/dev/null | head -n1)" = idle ]; do
  i=$((i + 1))
  if [ $i -gt 150 ]; then
    echo "slurm-start: the node never became idle; see $dir/slurmctld.log and $dir/slurmd.log" >&2
    exit 1
  fi
  sleep 0.2
done
echo "export SLURM_CONF=$dir/slurm.conf"
