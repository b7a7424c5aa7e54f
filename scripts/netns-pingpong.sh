#!/usr/bin/env bash
# End-to-end check of a pingpong tool across a real (virtual) link: two network namespaces joined by a
# veth pair, a jrxe device in each, `jrxe TOOL OPTIONS` server in one and client in the other (e.g.
# `rc-pingpong -g 1 -O` for implicit ODP, `srd-pingpong -c` for SRD).
# The veth ends get 10.77.0.1/24 and 10.77.0.2/24, which exist only inside those namespaces; the
# namespaces (and with them the veth pair) are always removed on exit. Needs root and iproute2.
#
# Usage: scripts/netns-pingpong.sh TOOL [its options, e.g. -n 200]   (TOOL: rc/uc/ud/srq/srd-pingpong)
# Environment:
#   JRXE_CMD      how to start jrxe (words split on blanks), e.g.
#                 "java --enable-native-access=ALL-UNNAMED -cp CLASSPATH dev.jrxe.tools.Main";
#                 default: the jar the ./jrxe launcher builds, run by the JDK the launcher finds.
#   JRXE_NETNS_TIMEOUT  seconds each side may take (default 300).
# Exit status: 0 when both sides finished and printed their results, non-zero otherwise.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=netns-lib.sh
. "$here/scripts/netns-lib.sh"
limit="${JRXE_NETNS_TIMEOUT:-300}"
[ $# -ge 1 ] || { echo "usage: netns-pingpong.sh TOOL [options]" >&2; exit 2; }
tool="$1"
shift
server_ip=10.77.0.1
client_ip=10.77.0.2

command -v ip >/dev/null || { echo "netns-pingpong: 'ip' (iproute2) not found" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "netns-pingpong: needs root (ip netns)" >&2; exit 1; }

# How to start jrxe: build the jar before entering the namespaces, and pass the JDK explicitly.
jrxe_command netns-pingpong
netns_setup "${tool%%-*}" "$server_ip" "$client_ip"
ns_server="$NS_A"
ns_client="$NS_B"
work="$WORK"

echo "netns-pingpong: $ns_server ($server_ip) <-> $ns_client ($client_ip), $tool $*"

timeout "$limit" ip netns exec "$ns_server" "${jrxe[@]}" "$tool" --ip "$server_ip" "$@" \
  > "$work/server.out" 2>&1 &
server_pid=$!
BG_PID=$server_pid

# The client retries its TCP connect for a few seconds only: start it once the server listens.
wait_for_line netns-pingpong "$work/server.out" '^  local address:' "$server_pid" "$limit" || exit 1

client_rc=0
timeout "$limit" ip netns exec "$ns_client" "${jrxe[@]}" "$tool" --ip "$client_ip" "$@" "$server_ip" \
  > "$work/client.out" 2>&1 || client_rc=$?
server_rc=0
wait "$server_pid" || server_rc=$?
BG_PID=""

sed 's/^/server: /' "$work/server.out"
sed 's/^/client: /' "$work/client.out"

status=0
for side in server client; do
  rc_var="${side}_rc"
  if ! side_status netns-pingpong "$side" "${!rc_var}"; then
    status=1
  elif ! grep -q 'Mbit/sec$' "$work/$side.out" || ! grep -q 'usec/iter$' "$work/$side.out"; then
    echo "netns-pingpong: $side printed no Mbit/sec and usec/iter lines" >&2
    status=1
  fi
done
[ "$status" -eq 0 ] && echo "netns-pingpong: passed"
exit "$status"
