#!/usr/bin/env bash
# Live updates (GET /v0/events) on the embedded default, the three figures of issue 29:
#   1. the server's resident memory per open idle stream, with 2,000 streams;
#   2. message.created latency, from just before POST /v0/messages to the event read off the
#      recipient's stream, at 500 messages a second;
#   3. GET /v0/users/me (wrk, 32 connections) with no stream open, then beside 2,000 open streams.
# Usage: bench/live.sh [streams] [rate] [seconds]
streams="${1:-2000}"
rate="${2:-500}"
seconds="${3:-20}"
# One user holds every stream and one sends everything: lift the per-user and per-address bounds
# and the daily messaging quota (they are what a real deployment spreads over many users).
SERVER_CONFIG=$(mktemp --suffix=.toml)
cat >"$SERVER_CONFIG" <<TOML
[plans.default]
"messaging.perDay" = 100000000
[live]
max_streams_per_user = $((streams + 10))
[http]
max_connections_per_address = $((streams + 100))
TOML
export SERVER_CONFIG
source "$(dirname "$0")/common.sh"
trap 'kill $SERVER_PID 2>/dev/null; wait $SERVER_PID 2>/dev/null; rm -rf "$DATA" "$SERVER_CONFIG"' EXIT
ulimit -n 20000 2>/dev/null || true
cargo build --quiet --locked -p trellis-tests --bin live-load >&2
load="${CARGO_TARGET_DIR:-target}/debug/live-load"

# The recipient: a second account, signed up like the first.
PEER_TOKEN=$(second_user)

rss_kib() { awk '/^VmRSS/ {print $2}' "/proc/$SERVER_PID/status"; }
users_me() {
  wrk -t2 -c32 -d"${seconds}s" -H "X-License-Key: $KEY" -H "Authorization: Bearer $TOKEN" "$BASE/v0/users/me" |
    awk '/Requests\/sec/ {print $2}'
}

echo "== GET /v0/users/me, no stream open"
wrk -t2 -c32 -d5s -H "X-License-Key: $KEY" -H "Authorization: Bearer $TOKEN" "$BASE/v0/users/me" >/dev/null
alone=$(users_me)
echo "requests/s: $alone"

echo "== $streams idle streams"
# What the server's resident memory grows by while the streams open (mimalloc returns freed pages
# lazily, so a second round after closing them measures the allocator, not the streams).
before=$(rss_kib)
fifo="$DATA/hold.out"
"$load" hold "$BASE" "$KEY" "$TOKEN" "$streams" $((seconds * 3 + 60)) >"$fifo" &
HOLD_PID=$!
trap 'kill $HOLD_PID $SERVER_PID 2>/dev/null; wait $SERVER_PID 2>/dev/null; rm -rf "$DATA" "$SERVER_CONFIG"' EXIT
for _ in $(seq 1 600); do grep -q '^open' "$fifo" && break; sleep 0.1; done
grep -q '^open' "$fifo" || { echo "the streams did not open" >&2; exit 1; }
sleep 2
after=$(rss_kib)
echo "resident memory: $before KiB with none open, $after KiB with $streams streams:" \
  "$(python3 -c "print(round(($after - $before) / $streams, 1))") KiB per stream"

echo "== GET /v0/users/me beside $streams open streams"
beside=$(users_me)
echo "requests/s: $beside ($(python3 -c "print(round(100 * $beside / $alone))") % of the rate with none open)"

echo "== message.created latency at $rate messages/s for $seconds s (beside $streams open streams)"
"$load" latency "$BASE" "$KEY" "$TOKEN" "$PEER_TOKEN" peer "$rate" "$seconds"
