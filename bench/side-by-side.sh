#!/usr/bin/env bash
# Tenure, etcd and ZooKeeper side by side on this machine: the same closed-loop workloads
# (`uncontended`: one client's acquire+release p50; `parallel`: cycles/s of 32 clients, each its
# own connection, session and lock), fsync on, loopback, one node and three nodes, each system
# started fresh for every run and the systems alternated round by round. See BENCHMARKS.md,
# "Side by side with etcd and ZooKeeper".
#
#   bench/side-by-side.sh [--nodes 1,3] [--rounds 3] [--warmup 20s] [--duration 15s] [--out DIR]
#                         [--tenure-port 7800] [--etcd-port 2379] [--zookeeper-port 2181] [--no-build]
#
# Installs etcd-server, zookeeper, jq and curl with apt-get when missing (as root), builds
# cli/target/tenure.jar and peers/target/tenure-peers.jar (`mvn package`, never install), writes
# every run's JSON and logs to --out, and prints one table at the end.
set -euo pipefail

root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
nodes_list=1,3
rounds=3
warmup=20s
duration=15s
out="side-by-side-$(date -u +%Y%m%dT%H%M%SZ)"
tenure_port=7800
etcd_port=2379
zk_port=2181
build=1

usage() { sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
while (($#)); do
  case "$1" in
    --nodes) nodes_list="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --tenure-port) tenure_port="$2"; shift 2 ;;
    --etcd-port) etcd_port="$2"; shift 2 ;;
    --zookeeper-port) zk_port="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "side-by-side: unknown option '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
[[ "$rounds" =~ ^[1-9][0-9]{0,2}$ ]] || { echo "side-by-side: --rounds must be 1 to 999, was '$rounds'" >&2; exit 2; }
[[ "$nodes_list" =~ ^[13](,[13])?$ ]] || { echo "side-by-side: --nodes takes 1, 3 or 1,3, was '$nodes_list'" >&2; exit 2; }
for d in "$warmup" "$duration"; do
  [[ "$d" =~ ^[0-9]{1,9}(ms|s|m)$ ]] || { echo "side-by-side: '$d' is not a duration (e.g. 500ms, 20s, 2m)" >&2; exit 2; }
done
for p in "$tenure_port" "$etcd_port" "$zk_port"; do
  [[ "$p" =~ ^[0-9]{4,5}$ ]] && ((p + 60 < 65536)) || { echo "side-by-side: bad port '$p'" >&2; exit 2; }
done
IFS=, read -r -a node_counts <<<"$nodes_list"

# --- What this needs: the two peers from Debian's packages, jq and curl for their answers. ---
need_apt=()
command -v etcd >/dev/null 2>&1 || need_apt+=(etcd-server)
[[ -f /usr/share/java/zookeeper.jar ]] || need_apt+=(zookeeper)
command -v jq >/dev/null 2>&1 || need_apt+=(jq)
command -v curl >/dev/null 2>&1 || need_apt+=(curl)
command -v ss >/dev/null 2>&1 || need_apt+=(iproute2)
if ((${#need_apt[@]})); then
  if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
    echo "side-by-side: missing ${need_apt[*]}: install them (Debian: apt-get install ${need_apt[*]}) and run again" >&2
    exit 1
  fi
  echo "side-by-side: installing ${need_apt[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need_apt[@]}"
fi
# Debian's zookeeper package may start a server of its own (zookeeperd); ours binds its own ports.

if ((build)); then
  echo "side-by-side: building cli/target/tenure.jar and peers/target/tenure-peers.jar" >&2
  (cd "$root" && mvn -q -B -DskipTests package -pl cli,peers -am)
fi
tenure=("$root/bin/tenure")
peers=(java -XX:+UseSerialGC -Xmx1g -jar "$root/peers/target/tenure-peers.jar")
[[ -f "$root/cli/target/tenure.jar" && -f "$root/peers/target/tenure-peers.jar" ]] ||
  { echo "side-by-side: no jars; run without --no-build" >&2; exit 1; }

mkdir -p "$out/logs"
out="$(cd "$out" && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/side-by-side.XXXXXX")"
# Every system fsyncs its log; on tmpfs an fsync costs nothing and the comparison means nothing.
if [[ "$(stat -f -c %T "$work")" == tmpfs ]]; then
  echo "side-by-side: $work is on tmpfs, where fsync is free; set TMPDIR to a disk" >&2
  rmdir "$work"
  exit 2
fi

# --- Every process this script starts, stopped on exit, Ctrl-C or TERM. ---
pids=()
clusters=()
stop_pid() {
  local pid=$1 i
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < 100; i++)); do
    kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
    sleep 0.2
  done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}
stop_all() {
  local pid dir
  for dir in ${clusters[@]+"${clusters[@]}"}; do
    "${tenure[@]}" cluster stop --data "$dir" >/dev/null 2>&1 || true
    # A stop that failed leaves its nodes: end them by the pids the cluster recorded.
    for pid in $(jq -r '.nodes[].pid' "$dir/cluster.json" 2>/dev/null); do stop_pid "$pid"; done
  done
  clusters=()
  for pid in ${pids[@]+"${pids[@]}"}; do stop_pid "$pid"; done
  pids=()
}
cleanup() {
  stop_all
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- Ports: each system's, checked free before it starts. ---
tenure_ports() { local i b; for ((i = 0; i < $1; i++)); do b=$((tenure_port + 20 * i)); echo $b $((b + 1)) $((b + 10)) $((b + 11)) $((b + 12)) $((b + 13)) $((b + 14)) $((b + 15)); done; }
etcd_ports() { local i; for ((i = 0; i < $1; i++)); do echo $((etcd_port + 10 * i)) $((etcd_port + 10 * i + 1)); done; }
zk_ports() { local i; for ((i = 0; i < $1; i++)); do echo $((zk_port + 10 * i)) $((zk_port + 10 * i + 1)) $((zk_port + 10 * i + 2)); done; }
check_free() {
  local system=$1 p
  shift
  for p in "$@"; do
    # Listening TCP sockets and bound UDP sockets; a TIME_WAIT left by the last run does not count.
    if [[ -n "$(ss -Hlntu "( sport = :$p )")" ]]; then
      echo "side-by-side: port $p, which $system needs, is in use (see ss -lntup); choose another base with --${system}-port" >&2
      exit 1
    fi
  done
}

wait_until() { # SECONDS WHAT COMMAND...: runs COMMAND every 0.2 s until it succeeds
  local limit=$1 what=$2 i
  shift 2
  for ((i = 0; i < limit * 5; i++)); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  echo "side-by-side: $what not ready within ${limit}s" >&2
  return 1
}

# --- etcd: 1 or 3 members on loopback, default fsync (etcd always fsyncs its WAL), default quota. ---
start_etcd() { # N DIR LOG -> sets endpoints
  local n=$1 dir=$2 log=$3 i cluster="" urls=()
  check_free etcd $(etcd_ports "$n")
  for ((i = 0; i < n; i++)); do
    cluster+="${cluster:+,}e$i=http://127.0.0.1:$((etcd_port + 10 * i + 1))"
    urls+=("127.0.0.1:$((etcd_port + 10 * i))")
  done
  for ((i = 0; i < n; i++)); do
    local c="http://127.0.0.1:$((etcd_port + 10 * i))" p="http://127.0.0.1:$((etcd_port + 10 * i + 1))"
    etcd --name "e$i" --data-dir "$dir/e$i" \
      --listen-client-urls "$c" --advertise-client-urls "$c" \
      --listen-peer-urls "$p" --initial-advertise-peer-urls "$p" \
      --initial-cluster "$cluster" --initial-cluster-state new --initial-cluster-token "side-by-side-$$" \
      >>"$log.e$i" 2>&1 &
    pids+=($!)
  done
  for ((i = 0; i < n; i++)); do
    wait_until 60 "etcd member e$i" etcd_healthy "$((etcd_port + 10 * i))"
  done
  endpoints=$(IFS=,; echo "${urls[*]}")
}
etcd_healthy() { curl -fsS --max-time 2 "http://127.0.0.1:$1/health" | jq -e '.health == "true"'; }

# --- ZooKeeper: standalone or a 3-node ensemble, forceSync=yes (its default), heap 512 MiB. ---
start_zookeeper() { # N DIR LOG -> sets endpoints
  local n=$1 dir=$2 log=$3 i j urls=()
  check_free zookeeper $(zk_ports "$n")
  local cp=/usr/share/java/zookeeper.jar
  # Debian's jar names its dependencies in its manifest; slf4j-simple makes its log readable.
  [[ -f /usr/share/java/slf4j-simple.jar ]] && cp+=:/usr/share/java/slf4j-simple.jar
  for ((i = 0; i < n; i++)); do
    local home="$dir/z$i" client=$((zk_port + 10 * i))
    mkdir -p "$home/data" "$home/log"
    {
      echo "tickTime=2000"
      echo "initLimit=10"
      echo "syncLimit=5"
      echo "dataDir=$home/data"
      echo "dataLogDir=$home/log"
      echo "clientPort=$client"
      echo "clientPortAddress=127.0.0.1"
      echo "forceSync=yes"
      echo "admin.enableServer=false"
      echo "4lw.commands.whitelist=srvr"
      if ((n > 1)); then
        for ((j = 0; j < n; j++)); do
          echo "server.$((j + 1))=127.0.0.1:$((zk_port + 10 * j + 1)):$((zk_port + 10 * j + 2))"
        done
      fi
    } >"$home/zoo.cfg"
    ((n > 1)) && echo $((i + 1)) >"$home/data/myid"
    urls+=("127.0.0.1:$client")
  done
  for ((i = 0; i < n; i++)); do
    java -XX:+UseSerialGC -Xmx512m -cp "$cp" org.apache.zookeeper.server.quorum.QuorumPeerMain "$dir/z$i/zoo.cfg" \
      >>"$log.z$i" 2>&1 &
    pids+=($!)
  done
  for ((i = 0; i < n; i++)); do
    wait_until 60 "zookeeper node z$i" zk_serving "$((zk_port + 10 * i))"
  done
  endpoints=$(IFS=,; echo "${urls[*]}")
}
zk_serving() { # a standalone server, or a member of an ensemble that has a leader
  timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1; echo srvr >&3; cat <&3" | grep -Eq '^Mode: (standalone|leader|follower)'
}

# --- Tenure: `tenure server` for one node, `tenure cluster start` for three. ---
start_tenure() { # N DIR LOG -> sets endpoints
  local n=$1 dir=$2 log=$3
  check_free tenure $(tenure_ports "$n")
  if ((n == 1)); then
    "${tenure[@]}" server --data "$dir/n0" --port "$tenure_port" --admin-port $((tenure_port + 1)) \
      --cluster-port-base $((tenure_port + 10)) >>"$log" 2>&1 &
    pids+=($!)
    wait_until 60 "tenure node" grep -q "serving on" "$log"
    endpoints="127.0.0.1:$tenure_port"
  else
    clusters+=("$dir")
    endpoints=$("${tenure[@]}" cluster start --nodes "$n" --data "$dir" --base-port "$tenure_port" --json 2>>"$log" |
      jq -r .endpoints)
  fi
}

run_bench() { # SYSTEM ENDPOINTS JSON LOG; run in the background, it becomes the bench's JVM (exec)
  local cmd
  case "$1" in
    tenure) cmd=("${tenure[@]}" bench uncontended parallel --endpoints "$2") ;;
    etcd) cmd=("${peers[@]}" --etcd "$2" uncontended parallel) ;;
    zookeeper) cmd=("${peers[@]}" --zookeeper "$2" uncontended parallel) ;;
  esac
  exec "${cmd[@]}" --warmup "$warmup" --duration "$duration" --json >"$3" 2>>"$4"
}

runs="$out/runs.tsv"
printf 'system\tnodes\tround\tload1\tuncontended_p50_ms\tparallel_cycles_per_s\terrors\n' >"$runs"
systems=(tenure etcd zookeeper)
echo "side-by-side: nodes $nodes_list, $rounds round(s), warm-up $warmup, measured $duration; results in $out" >&2
for nodes in "${node_counts[@]}"; do
  for ((round = 1; round <= rounds; round++)); do
    # The order turns each round, so that no system always runs first (on a cold machine) or last.
    for ((k = 0; k < 3; k++)); do
      system=${systems[$(((round - 1 + k) % 3))]}
      name="$system-n$nodes-r$round"
      dir="$work/$name"
      log="$out/logs/$name"
      mkdir -p "$dir"
      echo "side-by-side: $name: starting" >&2
      "start_$system" "$nodes" "$dir" "$log.server.log"
      load=$(cut -d' ' -f1 /proc/loadavg)
      echo "side-by-side: $name: bench against $endpoints (load average $load)" >&2
      status=0
      # In the background, so that Ctrl-C or TERM ends the wait at once and the trap stops it too.
      run_bench "$system" "$endpoints" "$out/$name.json" "$log.bench.log" &
      pids+=($!)
      wait $! || status=$?
      stop_all
      rm -rf "$dir"
      if ((status != 0)); then
        echo "side-by-side: $name: bench failed (exit $status), see $log.bench.log" >&2
        printf '%s\t%s\t%s\t%s\tfailed\tfailed\t-\n' "$system" "$nodes" "$round" "$load" >>"$runs"
        continue
      fi
      jq -r --arg s "$system" --arg n "$nodes" --arg r "$round" --arg l "$load" -s '
        (map(select(.workload == "uncontended"))[0]) as $u | (map(select(.workload == "parallel"))[0]) as $p |
        [$s, $n, $r, $l, $u.p50_ms, $p.ops_per_s, (($u.errors // 0) + ($p.errors // 0))] | @tsv' \
        "$out/$name.json" >>"$runs"
    done
  done
done

# --- The table: every run, then the median per system and Tenure's ratio to each peer. ---
{
  echo
  echo "Every run (load: the 1-minute load average at the run's start):"
  awk -F'\t' 'NR == 1 { printf "%-10s %5s %5s %6s %18s %21s %6s\n", "system", "nodes", "round", "load", "uncontended p50 ms", "parallel cycles/s", "errors"; next }
              { printf "%-10s %5s %5s %6s %18s %21s %6s\n", $1, $2, $3, $4, $5, $6, $7 }' "$runs"
  echo
  echo "Medians, and Tenure/peer (p50: below 1 means Tenure is faster; cycles/s: above 1 means Tenure leads):"
  awk -F'\t' '
    function median(list,   a, n, i, j, t) {
      n = split(list, a, " ")
      for (i = 2; i <= n; i++) { t = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
      if (n == 0) return ""
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    NR > 1 && $5 != "failed" { key = $2 SUBSEP $1; p50[key] = p50[key] " " $5; ops[key] = ops[key] " " $6; count[key]++; seen[$2] = 1 }
    END {
      printf "%-10s %5s %5s %18s %21s %15s %21s\n", "system", "nodes", "runs", "uncontended p50 ms", "parallel cycles/s", "Tenure/peer p50", "Tenure/peer cycles/s"
      split("tenure etcd zookeeper", systems, " ")
      for (nodes = 1; nodes <= 3; nodes += 2) {
        if (!(nodes in seen)) continue
        t = nodes SUBSEP "tenure"
        tp = (t in count) ? median(p50[t]) : ""
        to = (t in count) ? median(ops[t]) : ""
        for (s = 1; s <= 3; s++) {
          key = nodes SUBSEP systems[s]
          if (!(key in count)) continue
          mp = median(p50[key]); mo = median(ops[key])
          rp = (systems[s] != "tenure" && tp != "" && mp > 0) ? sprintf("%.2f", tp / mp) : "-"
          ro = (systems[s] != "tenure" && to != "" && mo > 0) ? sprintf("%.2f", to / mo) : "-"
          printf "%-10s %5s %5s %18.3f %21.1f %15s %21s\n", systems[s], nodes, count[key], mp, mo, rp, ro
        }
      }
    }' "$runs"
} | tee "$out/table.txt"
