#!/usr/bin/env bash
# RC under faults made by the kernel, not by jrxe: two network namespaces joined by a veth pair
# (10.79.0.1 receiver, 10.79.0.2 sender; the addresses exist only inside them), `jrxe rc-stream`
# across it, first with a clean link, then with nftables and HTB hurting every RoCE datagram either
# namespace sends (requests one way, ACKs and responses the other):
#   loss       nft `numgen random mod 1000 < L drop`
#   duplicate  nft `dup to <peer> device <veth>` on a random share
#   reorder    nft sets skb->priority 1:20 on a random share; HTB's class 1:20 on the veth is slow
#              (2 Mbit/s), so those datagrams arrive after later ones
#   corrupt    nft `@th,<bit>,8 set` rewrites a byte of the UDP payload (the ICRC catches it)
# The receiver checks every message (order, duplicates, loss, data); the script prints both runs,
# the kernel's fault counts and the time ratio. jrxe's links use MMSG (no UDP GSO), so that each
# datagram meets the rules on its own. Needs root, iproute2 with tc (htb) and nftables.
#
# Usage: scripts/netns-chaos.sh [-n MESSAGES] [-s SIZE] [--loss PERMILLE] [--dup PERMILLE]
#                               [--reorder PERMILLE] [--corrupt PERMILLE] [--clean-only]
# Defaults: 1,000,000 messages of 1024 bytes, loss 50 (5 %), duplicate 10, reorder 10, corrupt 2.
# Environment: JRXE_CMD (how to start jrxe, as in netns-pingpong.sh), JRXE_CHAOS_TIMEOUT
# (seconds per run, default 1800).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
messages=1000000
size=1024
loss=50
dup=10
reorder=10
corrupt=2
clean_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    -n) messages="$2"; shift 2 ;;
    -s) size="$2"; shift 2 ;;
    --loss) loss="$2"; shift 2 ;;
    --dup) dup="$2"; shift 2 ;;
    --reorder) reorder="$2"; shift 2 ;;
    --corrupt) corrupt="$2"; shift 2 ;;
    --clean-only) clean_only=1; shift ;;
    *) echo "netns-chaos: unknown option $1" >&2; exit 2 ;;
  esac
done
limit="${JRXE_CHAOS_TIMEOUT:-1800}"
recv_ip=10.79.0.1
send_ip=10.79.0.2
# shellcheck source=netns-lib.sh
. "$here/scripts/netns-lib.sh"

for tool in ip tc nft; do
  command -v "$tool" >/dev/null || { echo "netns-chaos: '$tool' not found" >&2; exit 1; }
done
[ "$(id -u)" -eq 0 ] || { echo "netns-chaos: needs root (ip netns)" >&2; exit 1; }

jrxe_command netns-chaos
# one datagram per packet: no UDP GSO trains, which the rules would see (and drop) whole
jrxe=("${jrxe[0]}" -Djrxe.link.mode=MMSG "${jrxe[@]:1}")

netns_setup chaos "$recv_ip" "$send_ip"
ns_recv="$NS_A"
ns_send="$NS_B"
veth_recv="$VETH_A"
veth_send="$VETH_B"
work="$WORK"
echo "netns-chaos: $ns_recv ($recv_ip) <-> $ns_send ($send_ip)"

run() { # $1: label; prints the two sides' last lines, fails when the stream did not check out
  local label="$1"
  ip netns exec "$ns_recv" timeout "$limit" "${jrxe[@]}" rc-stream --ip "$recv_ip" -n "$messages" -s "$size" \
    --idle-timeout 60 >"$work/recv.out" 2>&1 &
  local recv_pid=$!
  BG_PID=$recv_pid
  local i
  for i in $(seq 1 100); do
    grep -q "rc-stream: receiving" "$work/recv.out" 2>/dev/null && break
    sleep 0.1
  done
  local t0 t1
  t0=$(date +%s.%N)
  local send_rc=0
  ip netns exec "$ns_send" timeout "$limit" "${jrxe[@]}" rc-stream --ip "$send_ip" "$recv_ip" -n "$messages" \
    -s "$size" >"$work/send.out" 2>&1 || send_rc=$?
  local recv_rc=0
  wait "$recv_pid" || recv_rc=$?
  BG_PID=""
  t1=$(date +%s.%N)
  echo "netns-chaos: $label"
  sed 's/^/  sender:   /' "$work/send.out"
  grep -v "rc-stream: receiving" "$work/recv.out" | sed 's/^/  receiver: /'
  elapsed=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
  if [ "$send_rc" -ne 0 ] || [ "$recv_rc" -ne 0 ]; then
    echo "netns-chaos: $label FAILED (sender $send_rc, receiver $recv_rc)" >&2
    exit 1
  fi
}

run "clean link, $messages messages of $size bytes"
clean=$elapsed
[ "$clean_only" -eq 1 ] && exit 0

# the faults: each namespace hurts what it sends (both directions: requests and responses)
hurt() { # $1 namespace, $2 its veth, $3 the peer's address
  ip netns exec "$1" tc qdisc add dev "$2" root handle 1: htb default 10
  ip netns exec "$1" tc class add dev "$2" parent 1: classid 1:10 htb rate 10gbit quantum 60000
  ip netns exec "$1" tc class add dev "$2" parent 1: classid 1:20 htb rate 2mbit ceil 2mbit
  ip netns exec "$1" nft -f - <<EOF
table ip chaos {
  counter lost {}
  counter duplicated {}
  counter reordered {}
  counter corrupted {}
  chain out {
    type filter hook output priority 0; policy accept;
    udp dport 4791 numgen random mod 1000 < $loss counter name lost drop
    udp dport 4791 numgen random mod 1000 < $corrupt counter name corrupted @th,200,8 set 0x5a
    udp dport 4791 numgen random mod 1000 < $reorder counter name reordered meta priority set 1:20
    udp dport 4791 numgen random mod 1000 < $dup counter name duplicated dup to $3 device "$2"
  }
}
EOF
}
hurt "$ns_send" "$veth_send" "$recv_ip"
hurt "$ns_recv" "$veth_recv" "$send_ip"
run "under loss $loss/1000, duplication $dup/1000, reordering $reorder/1000, corruption $corrupt/1000 (each, both ways)"
faulty=$elapsed
for side in send recv; do
  ns="ns_$side"
  ip netns exec "${!ns}" nft list counters table ip chaos \
    | awk -v side="$side" '/counter /{name=$2} /packets/{print "  kernel (" side " side sends): " name " " $2 " datagrams"}'
done
awk -v c="$clean" -v f="$faulty" 'BEGIN { printf "netns-chaos: clean %.2f s, under faults %.2f s: %.2fx\n", c, f, f / c }'
