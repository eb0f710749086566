#!/usr/bin/env bash
# Serve the app to a big class: N `streamlit run app.py` replicas on private ports, HAProxy in front on one
# public port, each browser kept on its replica by a cookie (Streamlit keeps a session in the process that made
# it). Ctrl-C stops everything.
#
#   bash scripts/serve.sh [--replicas 2] [--port 8501] [--address 0.0.0.0] [--logs logs/serve]
#
# --address 0.0.0.0 (the default) listens on every network interface: anyone on this computer's networks can
# open the app, which is what a class's phones need; --address 127.0.0.1 keeps it to this computer. Run in the
# background (`bash scripts/serve.sh &`), it stops with `kill %1` (SIGTERM), not Ctrl-C.
#
# Installs Debian's haproxy when it is missing. In the logs folder: each replica's log, the proxy's log and
# configuration, serve.log (each replica that died and was started again), and replicas.txt (a line per
# replica: its number, port and live process id). A replica that dies leaves the others serving; its browsers
# move to a live one, and the script starts it again.
set -euo pipefail
cd "$(dirname "$0")/.."

replicas=2
port=8501
address=0.0.0.0
logs=logs/serve
while [ $# -gt 0 ]; do
  case "$1" in
    --replicas) replicas="$2"; shift 2 ;;
    --port) port="$2"; shift 2 ;;
    --address) address="$2"; shift 2 ;;
    --logs) logs="$2"; shift 2 ;;
    *) echo "usage: bash scripts/serve.sh [--replicas N] [--port PORT] [--address ADDRESS] [--logs DIR]" >&2
       exit 2 ;;
  esac
done
case "$replicas" in ''|*[!0-9]*|0) echo "--replicas must be a whole number of at least 1" >&2; exit 2 ;; esac

. scripts/venv.sh   # the environment of scripts/run.sh and scripts/test.sh
python -c "import streamlit, torch" 2>/dev/null || python -m pip install -q -r requirements.txt

. scripts/apt.sh
command -v haproxy >/dev/null || apt_install haproxy   # Debian's HAProxy, as scripts/test.sh installs Chromium

mkdir -p "$logs"
rm -f "$logs"/*.log "$logs/replicas.txt" "$logs"/replicas.txt.new* "$logs/replicas.txt.lock"
# One cookie secret for every replica: the XSRF token a replica set still holds on another after a failover.
export STREAMLIT_SERVER_COOKIE_SECRET
STREAMLIT_SERVER_COOKIE_SECRET=$(python3 -c "import secrets; print(secrets.token_hex(32))")

# Where phones reach the class (classroom/public_link.py): the join link and its QR code carry this address.
if [ -z "${EXPLORER_PUBLIC_URL:-}" ]; then
  host=$address
  case "$address" in
    0.0.0.0|::|"") host=$(python3 -c "from classroom.public_link import network_address; print(network_address() or '')") ;;
  esac
  case "$host" in *:*) host="[$host]" ;; esac
  if [ -n "$host" ]; then export EXPLORER_PUBLIC_URL="http://$host:$port"; fi
fi

pids=()
stop() {
  trap - INT TERM EXIT
  [ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null || true
  wait 2>/dev/null || true
  echo "stopped: $replicas replicas and the proxy"
}
trap 'stop; exit 130' INT
trap 'stop; exit 143' TERM
trap stop EXIT

read -r -a ports <<< "$(python3 -c "
import socket
socks = [socket.socket() for _ in range($replicas)]
for s in socks: s.bind(('127.0.0.1', 0))
print(' '.join(str(s.getsockname()[1]) for s in socks))")"

# Each replica under a supervisor that starts it again when it dies, and says so (on stderr and in serve.log):
# its browsers move to a live replica meanwhile. replicas.txt always holds each replica's live process id.
supervise() {
  local i=$1 p=$2 child=""
  trap '[ -n "$child" ] && kill "$child" 2>/dev/null; exit 0' TERM INT
  while true; do
    EXPLORER_BEHIND_PROXY=1 python3 -m streamlit run app.py --server.headless true --server.address 127.0.0.1 \
      --server.port "$p" >>"$logs/replica-$i.log" 2>&1 &
    child=$!
    python3 scripts/replica_table.py "$logs/replicas.txt" "$i" "$p" "$child"
    code=0
    wait "$child" || code=$?
    echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) replica $i (process $child) ended with exit code $code; starting it again" \
      | tee -a "$logs/serve.log" >&2
    sleep 1
  done
}

servers=""
for i in $(seq 1 "$replicas"); do
  p=${ports[$((i - 1))]}
  supervise "$i" "$p" &
  pids+=($!)
  servers+="    server replica$i 127.0.0.1:$p cookie replica$i"$'\n'
done
for i in $(seq 1 "$replicas"); do   # each supervisor has written its replica's line
  until [ -f "$logs/replicas.txt" ] && grep -q "^$i " "$logs/replicas.txt"; do sleep 0.1; done
done

cat >"$logs/haproxy.cfg" <<EOF
global
    log stdout format raw local0
    maxconn 4096

defaults
    mode http
    log global
    option httplog
    option forwardfor               # the client's address, appended: the replicas count clients by it
    option redispatch               # a replica that went down: its browsers go to a live one
    retries 2
    timeout connect 5s
    timeout client 60s
    timeout server 60s
    timeout tunnel 1h               # Streamlit's websocket stays open while the tab does
    timeout http-request 10s

frontend attention_explorer
    bind $address:$port
    default_backend replicas

backend replicas
    balance leastconn
    cookie EXPLORER_REPLICA insert indirect nocache httponly
    option httpchk GET /api/ready   # 503 while every place at the gate is stuck (server/gate.py)
    http-check expect string ok
    default-server check inter 2s fall 2 rise 2
$servers
EOF

for i in $(seq 1 "$replicas"); do   # wait for every replica to say it is ready, as HAProxy will ask
  python -m scripts.wait_until_ready "http://127.0.0.1:${ports[$((i - 1))]}" 120
done

haproxy -f "$logs/haproxy.cfg" -db >"$logs/haproxy.log" 2>&1 &
proxy=$!
pids+=("$proxy")
echo "serving on http://$address:$port: $replicas replicas behind HAProxy (logs in $logs/); Ctrl-C stops all, or kill $$ when it runs in the background"
if [ -n "${EXPLORER_PUBLIC_URL:-}" ]; then
  echo "the address to project, for phones on this network: $EXPLORER_PUBLIC_URL"
else
  echo "no network address found: phones cannot reach this computer; set EXPLORER_PUBLIC_URL" >&2
fi
wait "$proxy" || true   # until Ctrl-C; a replica that dies does not end the class
echo "the proxy ended (see $logs/haproxy.log); stopping the replicas" >&2
