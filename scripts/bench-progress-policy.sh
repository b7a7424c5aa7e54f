#!/usr/bin/env bash
# Experiment for docs/BENCHMARKS.md: runs `jrxe bench pingpong --modes rc` and, during the warm-up,
# moves the jrxe progress threads of both child processes to another scheduling policy, to measure
# how much the background progress thread costs a busy-polling application on a small machine.
#   scripts/bench-progress-policy.sh idle|nice|none [extra bench options...]
# idle = SCHED_IDLE (chrt --idle 0), nice = nice 19 (renice), none = leave them alone.
# The warm-up must be long enough (default here 40000 round trips) for the change to land before
# measuring starts; the script reports when it applied the change.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
policy=${1:?idle, nice or none}
shift
"$here/jrxe" bench pingpong --modes rc --warmup 40000 --verbose "$@" &
bench=$!
applied=no
if [ "$policy" != none ]; then
  for _ in $(seq 1 200); do
    tids=()
    children=$(pgrep -P "$bench" -f -- "--role rc-" 2>/dev/null | sort -u || true)
    [ "$(echo "$children" | grep -c .)" -ge 2 ] || { sleep 0.05; continue; }
    for child in $children; do
      for t in /proc/"$child"/task/*; do
        if [[ "$(cat "$t/comm" 2>/dev/null)" == jrxe-*-pro* ]]; then tids+=("${t##*/}"); fi
      done
    done
    if [ "${#tids[@]}" -ge 2 ]; then
      for tid in "${tids[@]}"; do
        case $policy in
          idle) chrt --idle -p 0 "$tid" ;;
          nice) renice -n 19 -p "$tid" >/dev/null ;;
        esac
      done
      echo "bench-progress-policy: $policy applied to progress threads ${tids[*]}" >&2
      applied=yes
      break
    fi
    sleep 0.05
  done
  [ "$applied" = yes ] || echo "bench-progress-policy: found no progress threads; nothing changed" >&2
fi
wait "$bench"
