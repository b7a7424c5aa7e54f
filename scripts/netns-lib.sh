# Shared by the scripts/netns-*.sh checks (source it; it defines functions only).
#
# netns_setup PREFIX IP_A IP_B: two namespaces NS_A and NS_B joined by a veth pair VETH_A/VETH_B,
#   created directly inside them (nothing appears in the caller's namespace), addresses IP_A/24 and
#   IP_B/24, links up; registers the cleanup that removes them (and kills BG_PID, removes WORK).
# jrxe_command TAG: sets the array `jrxe`: JRXE_CMD when set, else a JDK >= 25 running the jar
#   (built first, before entering any namespace).

netns_cleanup() {
  local rc=$?
  if [ -n "${BG_PID:-}" ] && kill -0 "$BG_PID" 2>/dev/null; then
    kill "$BG_PID" 2>/dev/null || true
    wait "$BG_PID" 2>/dev/null || true
  fi
  # deleting a namespace destroys the veth end in it, and with it the pair
  [ -n "${NS_A:-}" ] && ip netns del "$NS_A" 2>/dev/null || true
  [ -n "${NS_B:-}" ] && ip netns del "$NS_B" 2>/dev/null || true
  [ -n "${WORK:-}" ] && rm -rf "$WORK"
  exit "$rc"
}

netns_setup() {
  local prefix="$1"
  NS_A="jrxe-$prefix-a-$$"
  NS_B="jrxe-$prefix-b-$$"
  VETH_A="j${prefix:0:3}a$$"
  VETH_B="j${prefix:0:3}b$$"
  WORK="$(mktemp -d)"
  BG_PID=""
  trap netns_cleanup EXIT
  trap 'exit 130' INT TERM
  ip netns add "$NS_A"
  ip netns add "$NS_B"
  ip link add "$VETH_A" netns "$NS_A" type veth peer name "$VETH_B" netns "$NS_B"
  ip -n "$NS_A" addr add "$2/24" dev "$VETH_A"
  ip -n "$NS_B" addr add "$3/24" dev "$VETH_B"
  local ns
  for ns in "$NS_A" "$NS_B"; do
    ip -n "$ns" link set lo up
  done
  ip -n "$NS_A" link set "$VETH_A" up
  ip -n "$NS_B" link set "$VETH_B" up
}

jrxe_command() {
  local tag="$1" here
  here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  if [ -n "${JRXE_CMD:-}" ]; then
    read -r -a jrxe <<< "$JRXE_CMD"
    return
  fi
  "$here/jrxe" --version >/dev/null # builds target/jrxe.jar when missing or stale
  local java_bin="" c v
  for c in ${JAVA_HOME:+"$JAVA_HOME/bin/java"} "$(command -v java 2>/dev/null || true)" /usr/lib/jvm/*/bin/java; do
    [ -n "$c" ] && [ -x "$c" ] || continue
    v=$("$c" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2; exit}')
    if [ "${v:-0}" -ge 25 ] 2>/dev/null; then java_bin="$c"; break; fi
  done
  [ -n "$java_bin" ] || { echo "$tag: no JDK >= 25 found" >&2; exit 1; }
  jrxe=("$java_bin" --enable-native-access=ALL-UNNAMED -jar "$here/target/jrxe.jar")
}

# wait_for_line NAME FILE PATTERN PID LIMIT: waits until FILE has a line matching PATTERN (grep -E);
# fails with FILE's contents when process PID ended first or LIMIT seconds passed.
wait_for_line() {
  local name="$1" file="$2" pattern="$3" pid="$4" limit="$5"
  local deadline=$((SECONDS + limit))
  until grep -Eq "$pattern" "$file" 2>/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null || [ "$SECONDS" -ge "$deadline" ]; then
      echo "$name: server did not start:" >&2
      sed 's/^/server: /' "$file" >&2
      return 1
    fi
    sleep 0.2
  done
}

# side_status NAME SIDE RC: 0 when RC is 0, else a message and 1.
side_status() {
  if [ "$3" -ne 0 ]; then
    echo "$1: $2 failed with exit status $3" >&2
    return 1
  fi
}
