#!/usr/bin/env bash
# rdma_cm across a real (virtual) link: two network namespaces joined by a veth pair, a jrxe device
# in each, `jrxe rping -s` in one and `jrxe rping -c -V` in the other: the CM's MADs and the RC
# traffic cross the veth. The veth ends get 10.78.0.1/24 and 10.78.0.2/24, which exist only inside
# those namespaces; the namespaces (and the veth pair) are always removed on exit. Needs root and
# iproute2.
#
# Usage: scripts/netns-rping.sh [extra client options, e.g. -C 200]
# Environment: JRXE_CMD and JRXE_NETNS_TIMEOUT as for netns-pingpong.sh.
# Exit status: 0 when both sides exited 0 after their disconnect events, non-zero otherwise.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=netns-lib.sh
. "$here/scripts/netns-lib.sh"
limit="${JRXE_NETNS_TIMEOUT:-300}"
server_ip=10.78.0.1
client_ip=10.78.0.2

command -v ip >/dev/null || { echo "netns-rping: 'ip' (iproute2) not found" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "netns-rping: needs root (ip netns)" >&2; exit 1; }

jrxe_command netns-rping
netns_setup rping "$server_ip" "$client_ip"
ns_server="$NS_A"
ns_client="$NS_B"
work="$WORK"

echo "netns-rping: $ns_server ($server_ip) <-> $ns_client ($client_ip), client options: -V $*"

timeout "$limit" ip netns exec "$ns_server" "${jrxe[@]}" rping -s -a "$server_ip" -d > "$work/server.out" 2>&1 &
server_pid=$!
BG_PID=$server_pid

wait_for_line netns-rping "$work/server.out" '^rping: listening on' "$server_pid" "$limit" || exit 1

client_rc=0
timeout "$limit" ip netns exec "$ns_client" "${jrxe[@]}" rping -c -a "$server_ip" --ip "$client_ip" -V "$@" \
  > "$work/client.out" 2>&1 || client_rc=$?
server_rc=0
wait "$server_pid" || server_rc=$?
BG_PID=""

sed 's/^/server: /' "$work/server.out"
sed 's/^/client: /' "$work/client.out"

status=0
for side in server client; do
  rc_var="${side}_rc"
  if ! side_status netns-rping "$side" "${!rc_var}"; then
    status=1
  elif ! grep -q "^$side DISCONNECT EVENT\.\.\.$" "$work/$side.out"; then
    echo "netns-rping: $side printed no disconnect event" >&2
    status=1
  fi
done
[ "$status" -eq 0 ] && echo "netns-rping: passed"
exit "$status"
