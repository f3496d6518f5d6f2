#!/usr/bin/env bash
# How long a member that was down under load takes to serve again and to catch up, for
# docs/cluster.md's "Sizing". A local three-node cluster (`tenure cluster start`); one follower is
# stopped (SIGTERM), `tenure bench parallel` runs against the other two for --down, then the load
# stops and `tenure cluster start` on the same directory restarts the member. Reported: the log
# the member missed, the time until its admin port says healthy, and the time until its log
# position reaches the leader's position at the restart.
#
#   bench/recovery.sh [--down 10m] [--clients 8] [--base-port 7620] [--out DIR] [--no-build]
set -euo pipefail

root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
down=10m
clients=8
base=7620
out="recovery-$(date -u +%Y%m%dT%H%M%SZ)"
build=1
usage() { sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
while (($#)); do
  case "$1" in
    --down) down="$2"; shift 2 ;;
    --clients) clients="$2"; shift 2 ;;
    --base-port) base="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "recovery: unknown option '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
[[ "$down" =~ ^[0-9]{1,4}(s|m)$ ]] || { echo "recovery: --down takes e.g. 30s or 10m, was '$down'" >&2; exit 2; }
[[ "$clients" =~ ^[1-9][0-9]{0,2}$ ]] || { echo "recovery: --clients must be 1 to 999, was '$clients'" >&2; exit 2; }
[[ "$base" =~ ^[0-9]{4,5}$ ]] && ((base + 60 < 65536)) || { echo "recovery: bad port '$base'" >&2; exit 2; }
command -v jq >/dev/null 2>&1 && command -v curl >/dev/null 2>&1 \
  || { echo "recovery: needs jq and curl (apt-get install jq curl)" >&2; exit 2; }
if ((build)); then
  (cd "$root" && mvn -q -B -o -DskipTests package -pl cli -am)
fi
mkdir -p "$out"
out="$(cd "$out" && pwd)"
tenure="$root/bin/tenure"
report="$out/recovery.txt"
: >"$report"
say() { echo "$*" | tee -a "$report"; }
trap '"$tenure" cluster stop --data "$out/cluster" >/dev/null 2>&1 || true' EXIT
ms_now() { date +%s%3N; }
admin_of() { echo $((base + 20 * $1 + 1)); }
metric() { curl -fsS "http://127.0.0.1:$(admin_of "$1")/metrics" | awk -v m="$2" '$1 == m { printf "%d\n", $2 }'; }
leader_of() {
  local id
  for i in 0 1 2; do
    id=$(curl -fsS "http://127.0.0.1:$(admin_of "$i")/health" 2>/dev/null | jq -r '.leader_id // empty') || true
    [[ "$id" =~ ^[0-2]$ ]] && { echo "$id"; return 0; }
  done
  echo "recovery: no node names a leader" >&2
  exit 1
}

say "recovery: $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
"$tenure" cluster start --data "$out/cluster" --nodes 3 --base-port "$base" --json >"$out/start.json"
leader=$(leader_of)
member=$(((leader + 1) % 3))
other=$(((leader + 2) % 3))
pid=$(jq -r ".nodes[] | select(.id == $member) | .pid" "$out/start.json")
kill -TERM "$pid"
while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
at_stop=$(metric "$leader" tenure_replica_log_position)
endpoints="127.0.0.1:$((base + 20 * leader)),127.0.0.1:$((base + 20 * other))"
say "member $member stopped (leader $leader); $clients clients of bench parallel for $down"
"$tenure" bench parallel --endpoints "$endpoints" --clients "$clients" --warmup 0s --duration "$down" --json \
  >"$out/parallel.json" 2>"$out/parallel.err"
leader=$(leader_of)
target=$(metric "$leader" tenure_replica_log_position)
say "while it was down: $(jq -r '.ops' "$out/parallel.json") cycles, $(((target - at_stop) / 1048576)) MiB of log; leader $leader; snapshots $(metric "$leader" tenure_snapshots_total)"
t0=$(ms_now)
"$tenure" cluster start --data "$out/cluster" >"$out/restart.out" 2>&1
healthy_ms=$(($(ms_now) - t0))
until [[ "$(metric "$member" tenure_replica_log_position 2>/dev/null || echo 0)" -ge "$target" ]]; do
  (($(ms_now) - t0 < 1800000)) || { say "member $member did not catch up within 30 min"; exit 1; }
  sleep 0.1
done
caught_ms=$(($(ms_now) - t0))
say "member $member restarted: healthy after $healthy_ms ms (cluster start's wait, JVM start included), at the leader's log position after $caught_ms ms"
