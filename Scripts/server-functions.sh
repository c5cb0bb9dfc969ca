# Shell functions the scripts that run a real server share; source it after setting W (the
# whereabouts binary) and work (a scratch folder, where serve.log goes).
#
#   free_port                    prints a free TCP port on 127.0.0.1
#   start_server DATA_DIR PORT   starts `whereabouts serve` in the background (its pid in
#                                server_pid) and waits until /health answers
#   wait_for_health PORT         waits (at most 30 s) until the server on PORT answers /health
#   stop_server                  stops it with SIGTERM and waits for it

server_pid=""

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

start_server() {
    "$W" serve --data-dir "$1" --port "$2" --log-level warning >>"$work/serve.log" 2>&1 &
    server_pid=$!
    wait_for_health "$2"
}

# wait_for_health PORT: waits (at most 30 s) until the server on PORT answers /health.
wait_for_health() {
    python3 - "$1" <<'PY'
import sys, time, urllib.request
for _ in range(300):
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/health", timeout=1)
        sys.exit(0)
    except Exception:
        time.sleep(0.1)
sys.exit("the server did not answer /health within 30 s")
PY
}

stop_server() {
    kill -TERM "$server_pid"
    wait "$server_pid" || true
    server_pid=""
}
