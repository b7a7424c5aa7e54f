#!/usr/bin/env bash
# Per-thread CPU time and context switches of a running process over an interval, from /proc:
#   scripts/thread-cpu.sh PID [SECONDS]
# Prints, for each thread that ran: user and system CPU in ms, voluntary and involuntary context
# switches during the interval. Used to see where a jrxe process spends its cores (docs/BENCHMARKS.md).
set -euo pipefail
pid=$1
secs=${2:-5}
tick=$(getconf CLK_TCK)

snapshot() {
  for t in /proc/"$pid"/task/*; do
    local tid=${t##*/} comm stat vol nonvol
    comm=$(cat "$t/comm" 2>/dev/null) || continue
    stat=$(sed 's/.*) //' "$t/stat" 2>/dev/null) || continue
    vol=$(awk '/^voluntary_ctxt_switches/ {print $2}' "$t/status" 2>/dev/null) || continue
    nonvol=$(awk '/^nonvoluntary_ctxt_switches/ {print $2}' "$t/status" 2>/dev/null) || continue
    # fields after "(comm) ": state=1 ... utime=12 stime=13
    set -- $stat
    echo "$tid ${comm// /_} ${12} ${13} $vol $nonvol"
  done
}

before=$(snapshot)
sleep "$secs"
after=$(snapshot)
printf '%-8s %-20s %9s %9s %9s %9s\n' tid thread user_ms sys_ms vol_cs invol_cs
join <(echo "$before" | sort) <(echo "$after" | sort) | awk -v tick="$tick" '
  { du=($8-$3)*1000/tick; ds=($9-$4)*1000/tick; dv=$10-$5; dn=$11-$6
    if (du+ds > 0 || dv+dn > 10) printf "%-8s %-20s %9d %9d %9d %9d\n", $1, $2, du, ds, dv, dn }'
