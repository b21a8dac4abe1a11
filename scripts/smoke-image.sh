#!/usr/bin/env bash
# Smoke-test the gonuts image with podman (CI runs it after scripts/build-image.sh):
#
#   scripts/smoke-image.sh [IMAGE]        # default $GONUTS_IMAGE, else localhost/gonuts:latest
#
# 1. start it (a named volume for the SQLite file, GONUTS_* from the environment, host network
#    on a free loopback port) and wait for GET /healthz 200; the image's HEALTHCHECK passes
#    (`podman healthcheck run`) and the server runs as the image's non-root user;
# 2. play a whole game against two bots over the API (scripts/smoke-game.py, run in a second
#    container of the same image: HTTP to create the table, then the WebSocket);
# 3. with a player's socket open, stop it with its STOPSIGNAL (podman stop: SIGTERM): the
#    socket is closed with 1012 and the server exits 0 within its grace period;
# 4. start it again on the same volume: the finished game is still there.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/container-env.sh
. scripts/container-env.sh
image="${1:-${GONUTS_IMAGE:-localhost/gonuts:latest}}"
read -r -a podman_cmd <<<"$PODMAN"
# podman without its complaints that no systemd runs here to time the health check
podman() { command "${podman_cmd[@]}" "$@" 2> >(grep -v 'systemd connection' >&2); }

say() { printf '==> [%(%H:%M:%S)T] %s\n' -1 "$*"; }
fail() { echo "smoke-image.sh: FAILED: $*" >&2; dump; exit 1; }

name="gonuts-smoke-$$"
volume="gonuts-smoke-data-$$"
tmp=$(mktemp -d)
dump() {
    echo "---- server log ----" >&2
    podman logs "$name" 2>&1 | grep -v 'systemd connection' | tail -n 40 >&2 || true
}
cleanup() {
    podman rm -f -t 0 "$name" >/dev/null 2>&1 || true
    podman rm -f -t 0 "$name-client" >/dev/null 2>&1 || true
    podman volume rm -f "$volume" >/dev/null 2>&1 || true
    rm -rf "$tmp"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"

start_server() {
    # --health-interval disable: no timer (this machine has no systemd to run one); the check
    # itself is run by hand below.
    podman run -d --name "$name" --network host --health-interval disable \
        -v "$volume:/var/lib/gonuts" \
        -e GONUTS_HOST=127.0.0.1 -e GONUTS_PORT="$port" -e GONUTS_BOT_DELAY=0 \
        -e GONUTS_THINK_WORKERS=1 -e GONUTS_ACCESS_LOG=1 \
        "$image" >/dev/null
    local i
    for i in $(seq 1 120); do
        if [ "$(podman inspect "$name" --format '{{.State.Running}}')" != "true" ]; then
            fail "the container exited before answering"
        fi
        if python3 -c "import urllib.request, sys; sys.exit(urllib.request.urlopen('$base/healthz', timeout=2).status != 200)" 2>/dev/null; then
            say "GET $base/healthz: 200 after $((i / 2)) s"
            return
        fi
        sleep 0.5
    done
    fail "no 200 from $base/healthz within 60 s"
}

client() {  # client MODE: scripts/smoke-game.py in a container of the image
    podman run --rm -i --name "$name-client" --network host --health-interval disable \
        --entrypoint python "$image" - "$1" "$base" <scripts/smoke-game.py
}

start=$SECONDS
say "podman run $image (volume $volume, port $port)"
podman volume create "$volume" >/dev/null
start_server
podman healthcheck run "$name" >/dev/null 2>&1 || fail "the image's HEALTHCHECK failed"
say "HEALTHCHECK: healthy"
user=$(podman exec "$name" id -un)
[ "$user" != "root" ] || fail "the server runs as root"
say "the server runs as $user ($(podman exec "$name" id -u))"

say "a whole game against two bots over the API"
client play | tee "$tmp/play.out" || fail "the game over the API failed"
table=$(sed -n 's/^table \([A-Za-z0-9_-]*\)$/\1/p' "$tmp/play.out")
[ -n "$table" ] || fail "no table id from the game"

say "SIGTERM (podman stop) with a player's socket open"
client hold >"$tmp/hold.out" 2>&1 &
hold_pid=$!
for _ in $(seq 1 120); do
    grep -q '^connected' "$tmp/hold.out" && break
    sleep 0.5
done
grep -q '^connected' "$tmp/hold.out" || { cat "$tmp/hold.out"; fail "the holding client did not connect"; }
stop_start=$SECONDS
podman stop -t 30 "$name" >/dev/null
status=$(podman inspect "$name" --format '{{.State.ExitCode}}')
wait "$hold_pid" && held=0 || held=$?
cat "$tmp/hold.out"
[ "$held" = 0 ] || fail "the open socket was not closed with 1012"
[ "$status" = 0 ] || fail "the server exited with status $status after SIGTERM"
podman logs "$name" >"$tmp/server.log" 2>&1 || true
grep -q 'Application shutdown complete' "$tmp/server.log" || fail "no graceful shutdown in the log"
say "stopped in $((SECONDS - stop_start)) s: exit status $status, graceful shutdown logged"

say "again on the same volume: the finished game is kept"
podman rm "$name" >/dev/null
start_server
python3 - "$base" "$table" <<'PY' || fail "the finished game was not kept in the volume"
import json, sys, urllib.request
base, table = sys.argv[1], sys.argv[2]
with urllib.request.urlopen(f"{base}/api/tables/{table}", timeout=5) as r:
    status = json.load(r)["status"]
print(f"table {table}: {status}")
sys.exit(status != "finished")
PY
podman stop -t 30 "$name" >/dev/null
say "smoke test passed in $((SECONDS - start)) s"
