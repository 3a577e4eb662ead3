#!/usr/bin/env bash
# Shared set-up for the HTTP benchmarks: a release server on a fresh data directory and a
# signed-in user. Source it; it defines $BASE, $KEY, $TOKEN and stops the server on exit.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

command -v wrk >/dev/null 2>&1 || { apt-get update -qq >/dev/null && apt-get install -y -qq wrk >/dev/null; }
# SERVER_BIN runs a given binary (e.g. another commit's build, for a before/after comparison).
if [ -z "${SERVER_BIN:-}" ]; then
  cargo build --release --locked -p trellis >&2
  SERVER_BIN="${CARGO_TARGET_DIR:-target}/release/trellis"
fi

PORT="${PORT:-18181}"
BASE="http://127.0.0.1:$PORT"
DATA=$(mktemp -d)
# SERVER_CONFIG names a configuration file for the server (e.g. one that enables a test module).
TRELLIS_LOG__FILTER="${TRELLIS_LOG__FILTER:-warn}" "$SERVER_BIN" serve ${SERVER_CONFIG:+--config "$SERVER_CONFIG"} --data-dir "$DATA" \
  --listen "127.0.0.1:$PORT" 2>"$DATA/server.log" &
SERVER_PID=$!
trap 'kill $SERVER_PID 2>/dev/null; wait $SERVER_PID 2>/dev/null; rm -rf "$DATA"' EXIT
for _ in $(seq 1 100); do curl -sf "$BASE/healthz" >/dev/null && break; sleep 0.1; done
KEY=$(cat "$DATA/license.key")

json() { curl -sf -H "X-License-Key: $KEY" -H 'Content-Type: application/json' "$@"; }
field() { python3 -c "import sys, json; print(json.load(sys.stdin)$1)"; }

signup_token=$(json -d '{"email":"bench@example.org","handle":"bench","fullName":"Bench User","displayName":"Bench"}' \
  "$BASE/v0/auth/sign-up/start" | field '["signupToken"]')
pin=$(cat "$DATA"/outbox/*.eml | tr -d '\r' | grep -oE '^ +[0-9]{6}$' | tr -d ' ' | tail -n 1)
json -d "{\"signupToken\":\"$signup_token\",\"pin\":\"$pin\"}" "$BASE/v0/auth/sign-up/verify-pin" >/dev/null
TOKEN=$(json -d "{\"signupToken\":\"$signup_token\",\"password\":\"bench password 1\"}" \
  "$BASE/v0/auth/sign-up/complete" | field '["sessionToken"]')
SERVER_PID_FOR_PS=$SERVER_PID
export BASE KEY TOKEN DATA SERVER_PID_FOR_PS
