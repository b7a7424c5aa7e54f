#!/usr/bin/env bash
# What on this host moves jrxe's latency figures, printed before measuring (docs/BENCHMARKS.md,
# "What moves a run's figures"):
#   scripts/bench-host.sh
# Warns when lo's UDP segmentation offload is off: jrxe's GSO trains (rc-pingpong's 4 KiB at MTU
# 1024 is one) are then cut in software on every send: a cold rc-pingpong was about 25% slower
# (it was found off on this VM once; the tests only change it inside namespaces of their own).
set -uo pipefail
echo "cpus: $(nproc)  load: $(cut -d' ' -f1-3 /proc/loadavg)"
if command -v ethtool >/dev/null 2>&1; then
  seg=$(ethtool -k lo 2>/dev/null | awk -F': ' '/^tx-udp-segmentation:/ {print $2}')
  echo "lo tx-udp-segmentation: ${seg:-unknown}"
  case "$seg" in
    off*) echo "WARNING: lo cuts UDP GSO trains in software; restore with: ethtool -K lo tx-udp-segmentation on" >&2 ;;
  esac
else
  echo "lo tx-udp-segmentation: unknown (no ethtool)"
fi
if grep -qw pcid /proc/cpuinfo; then pcid=yes; else pcid=no; fi
pti=$(grep -qw pti /proc/cpuinfo && echo on || echo off)
echo "page-table isolation: $pti, PCID: $pcid (without PCID every system call empties the TLB)"
[ -r /sys/kernel/mm/transparent_hugepage/enabled ] && echo "THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled)"
[ -r /proc/sys/kernel/sched_vcpu_pack ] && echo "sched_vcpu_pack: $(cat /proc/sys/kernel/sched_vcpu_pack)"
exit 0
