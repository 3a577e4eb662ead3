#!/usr/bin/env bash
# What a reconnection's replay costs over other people's events (Security III, finding 3): another
# user's workflow writes EVENTS item.changed events between the reconnecting user's Last-Event-ID and
# now (none of them the reconnecting user's), then the user reconnects RECONNECTS times. The figure is
# the time to the stream's first byte (the replay is read before the answer starts): median and max.
# Each answer is checked to be a replay, not a `reset`.
# Usage: bench/replay.sh [events] [reconnects]
events="${1:-50000}"
reconnects="${2:-20}"
SERVER_CONFIG=$(mktemp --suffix=.toml)
cat >"$SERVER_CONFIG" <<TOML
[live]
replay_seconds = 3600
TOML
export SERVER_CONFIG
source "$(dirname "$0")/common.sh"
trap 'kill $SERVER_PID 2>/dev/null; wait $SERVER_PID 2>/dev/null; rm -rf "$DATA" "$SERVER_CONFIG"' EXIT
PEER_TOKEN=$(second_user)
bench_auth=(-H "X-License-Key: $KEY" -H "Authorization: Bearer $TOKEN")

# The id of the newest event, as the `reset` of a reconnection naming no kept event carries it.
newest_id() {
  # The stream stays open: curl ends it after a second (exit 28), which is no failure here.
  { curl -s -N --max-time 1 "${bench_auth[@]}" -H 'Last-Event-ID: none' "$BASE/v0/events" || true; } |
    awk '/^id:/ {print $2; exit}'
}

echo "== the reconnecting user's last event: a message from peer"
json -H "Authorization: Bearer $PEER_TOKEN" -d '{"to":"bench","subject":"hello","body":"the last thing heard"}' \
  "$BASE/v0/messages" >/dev/null
LAST=$(newest_id)
echo "Last-Event-ID: $LAST"

echo "== $events events of another user's workflow (peer's items, POST /v0/forms with a workflow start)"
BENCH_TOKEN=$TOKEN
TOKEN=$PEER_TOKEN workflow_fixture
export BODY_FILE="$DATA/payload.json" STOP_AFTER=$((events / 2))
wrk -t2 -c32 -d"$((events / 600 + 10))s" -s bench/post_form.lua -H "X-License-Key: $KEY" \
  -H "Authorization: Bearer $PEER_TOKEN" "$BASE/v0/forms" | grep -E 'requests in|Non-2xx' || true
TOKEN=$BENCH_TOKEN
NEWEST=$(newest_id)
echo "events after the Last-Event-ID: $((NEWEST - LAST))"

echo "== $reconnects reconnections with Last-Event-ID: $LAST"
times=()
for _ in $(seq 1 "$reconnects"); do
  # The stream stays open: curl ends it after 2 s; a stream that had not answered by then is a failure.
  seconds=$(curl -s -N --max-time 2 -o "$DATA/replay.txt" -w '%{time_starttransfer}' "${bench_auth[@]}" \
    -H "Last-Event-ID: $LAST" "$BASE/v0/events" || true)
  if [ "$(python3 -c "print(float('$seconds') > 0)")" != True ]; then echo "no answer within 2 s" >&2; exit 1; fi
  # Nothing of the user's own came after their Last-Event-ID, so the body stays empty (curl then
  # writes no file); a `reset` would be the bound giving up.
  if [ -f "$DATA/replay.txt" ] && grep -q '^event: reset' "$DATA/replay.txt"; then echo "a reset, not a replay" >&2; exit 1; fi
  rm -f "$DATA/replay.txt"
  times+=("$seconds")
done
python3 - "${times[@]}" <<'PY'
import statistics, sys
ms = sorted(float(t) * 1000 for t in sys.argv[1:])
print(f"time to the answer, ms: median {statistics.median(ms):.1f}, max {ms[-1]:.1f} ({len(ms)} reconnections)")
PY
