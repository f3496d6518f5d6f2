#!/usr/bin/env bash
# The figures of docs/cluster.md's "Sizing": what a session and a lock cost a node, how much log a
# grant writes, and what snapshots, backups and restores take at --locks held locks. One node,
# started here with the heap and limits the lock count needs, on loopback.
#
#   bench/sizing.sh [--locks 100000] [--out DIR] [--port 7900] [--no-build]
#
# Steps: (1) `tenure bench hold` with 10,000 sessions of one lock: memory per session; (2) a fresh
# node, `bench parallel` for 15 s: log bytes and disk per grant; (3) a fresh node filled by
# `bench hold --sessions N/1000 --locks-per-session 1000`: memory per lock, then while the locks are
# held, a snapshot (its size and time from /metrics), `tenure backup` (size, time); then the node is
# stopped, `tenure restore` (time) and the restored node started (time until it serves, and the
# held locks it lists). Every figure goes to DIR/sizing.txt, the raw outputs beside it.
set -euo pipefail

root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
locks=100000
out="sizing-$(date -u +%Y%m%dT%H%M%SZ)"
port=7900
build=1
usage() { sed -n '2,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
while (($#)); do
  case "$1" in
    --locks) locks="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --port) port="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "sizing: unknown option '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
[[ "$locks" =~ ^[1-9][0-9]{3,6}$ ]] && ((locks % 1000 == 0 && locks <= 1000000)) \
  || { echo "sizing: --locks must be a multiple of 1000 up to 1000000, was '$locks'" >&2; exit 2; }
[[ "$port" =~ ^[0-9]{4,5}$ ]] && ((port + 1 < 65536)) || { echo "sizing: bad port '$port'" >&2; exit 2; }
command -v jq >/dev/null 2>&1 && command -v curl >/dev/null 2>&1 \
  || { echo "sizing: needs jq and curl (apt-get install jq curl)" >&2; exit 2; }
if ((build)); then
  (cd "$root" && mvn -q -B -o -DskipTests package -pl cli -am)
fi
mkdir -p "$out"
out="$(cd "$out" && pwd)"
tenure="$root/bin/tenure"
admin=$((port + 1))
report="$out/sizing.txt"
: >"$report"
say() { echo "$*" | tee -a "$report"; }
server_pid=""
stop_server() {
  if [[ -n "$server_pid" ]]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
  fi
}
trap stop_server EXIT
ms_now() { date +%s%3N; }
# Starts a node on DATA with the given extra flags and waits until it serves; the wait in ms is
# left in $serve_ms (not printed: a command substitution would lose $server_pid in its subshell).
start_server() {
  local data="$1" log="$2"
  shift 2
  local t0
  t0=$(ms_now)
  "$tenure" server --data "$data" --port "$port" --admin-port "$admin" "$@" >"$log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 1200); do
    if curl -fsS "http://127.0.0.1:$admin/health" >/dev/null 2>&1; then
      serve_ms=$(($(ms_now) - t0))
      return 0
    fi
    kill -0 "$server_pid" 2>/dev/null || { echo "sizing: the node ended; see $log" >&2; exit 1; }
    sleep 0.1
  done
  echo "sizing: the node did not serve within 120 s; see $log" >&2
  exit 1
}
# A metric's value as a whole number (the exposition may write 1.7641784E7).
metric() { curl -fsS "http://127.0.0.1:$admin/metrics" | awk -v m="$1" '$1 == m { printf "%.0f\n", $2 }'; }
metric_ms() { curl -fsS "http://127.0.0.1:$admin/metrics" | awk -v m="$1" '$1 == m { printf "%.0f\n", $2 * 1000 }'; }
endpoint="127.0.0.1:$port"

say "sizing: $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"

# (1) Memory per session: the default limits' 10,000 sessions, each with one lock.
start_server "$out/data-sessions" "$out/node-sessions.log"
"$tenure" bench hold --endpoints "$endpoint" --server-pid "$server_pid" --sessions 10000 \
  --warmup 5s --duration 5s --json >"$out/hold-sessions.json" 2>"$out/hold-sessions.err"
jq -r '"per session (with its one lock): heap \(.server_heap_bytes_per_session | floor) B, resident \(.server_rss_bytes_per_session | floor) B, \(.sessions) sessions"' \
  "$out/hold-sessions.json" | while read -r l; do say "$l"; done
stop_server

# (2) Log and disk per grant: a fresh node, 32 clients acquiring and releasing for 15 s.
start_server "$out/data-grants" "$out/node-grants.log"
du0=$(du -s -B1 "$out/data-grants" | cut -f1)
pos0=$(metric tenure_replica_log_position)
"$tenure" bench parallel --endpoints "$endpoint" --warmup 0s --duration 15s --json >"$out/parallel.json" 2>"$out/parallel.err"
grants=$(metric tenure_grants_total)
pos1=$(metric tenure_replica_log_position)
sync
du1=$(du -s -B1 "$out/data-grants" | cut -f1)
say "per grant (one acquire and one release, 32 clients): log $((($pos1 - $pos0) / $grants)) B; data directory $(((du1 - du0) / $grants)) B (grants $grants, log $((($pos1 - $pos0) / 1048576)) MiB, directory $((du1 / 1048576)) MiB)"
stop_server

# (3) N held locks: 1,000 per session. The heap and the limits are raised for them (docs/memory.md).
sessions=$((locks / 1000))
heap_mb=$((512 + locks * 12 / 1000))
export TENURE_JAVA_OPTS="-XX:+UseSerialGC -Xmx${heap_mb}m"
start_server "$out/data-locks" "$out/node-locks.log" --snapshot-interval 1h \
  --limit "locksMax=$((locks + 1000))"
unset TENURE_JAVA_OPTS
"$tenure" bench hold --endpoints "$endpoint" --server-pid "$server_pid" --sessions "$sessions" \
  --locks-per-session 1000 --clients 10 --warmup 0s --duration 60s --json \
  >"$out/hold-locks.json" 2>"$out/hold-locks.err" &
hold_pid=$!
until grep -q "hold a lock; measuring" "$out/hold-locks.err" 2>/dev/null; do
  kill -0 "$hold_pid" 2>/dev/null || { echo "sizing: bench hold ended early; see $out/hold-locks.err" >&2; exit 1; }
  sleep 1
done
# The backup is taken while every lock is held: it encodes the state the snapshot would.
t0=$(ms_now)
"$tenure" backup --endpoint "$endpoint" --out "$out/locks.tnbk" >"$out/backup.out" 2>&1
backup_ms=$(($(ms_now) - t0))
wait "$hold_pid"
jq -r '"per lock (\(.locks) locks over \(.sessions) sessions, set-up \(.seconds | floor) s): heap \(.server_heap_bytes_per_lock | floor) B, resident \(.server_rss_bytes_per_lock | floor) B"' \
  "$out/hold-locks.json" | while read -r l; do say "$l"; done
say "backup at $locks locks: $(stat -c %s "$out/locks.tnbk") B in $backup_ms ms (the tenure backup command, JVM start included)"
stop_server
t0=$(ms_now)
"$tenure" restore "$out/locks.tnbk" --data "$out/data-restored" >"$out/restore.out" 2>&1
say "restore at $locks locks: $(($(ms_now) - t0)) ms (the tenure restore command, JVM start included)"
export TENURE_JAVA_OPTS="-XX:+UseSerialGC -Xmx${heap_mb}m"
start_server "$out/data-restored" "$out/node-restored.log" --limit "locksMax=$((locks + 1000))"
unset TENURE_JAVA_OPTS
say "restored node serving after $serve_ms ms (JVM start and the restore seed loaded)"
# A restored leader snapshots the seed at once, so its first snapshot holds every restored lock.
for _ in $(seq 1 600); do
  [[ "$(metric tenure_snapshots_total)" -ge 1 ]] && break
  sleep 0.1
done
say "snapshot at $locks locks: $(metric tenure_snapshot_size_bytes_sum) B in $(metric_ms tenure_snapshot_write_seconds_sum) ms"
stop_server
say "raw outputs: $out"
