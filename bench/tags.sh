#!/usr/bin/env bash
# GET /v0/spaces/{spaceId}/modules/tags/counts (license, session, membership and connected-module
# checks, then one Tags module invocation: fresh instance, one key-value read, drop) at 32
# connections on the embedded default (SQLite). Target: at least 8,000 requests/s.
# Usage: bench/tags.sh [seconds]
source "$(dirname "$0")/common.sh"
seconds="${1:-20}"
auth=(-H "X-License-Key: $KEY" -H "Authorization: Bearer $TOKEN")
space_id=$(json "${auth[@]}" -d '{"name":"bench-space","displayName":"Bench space"}' "$BASE/v0/spaces" | field '["spaceId"]')
json "${auth[@]}" -X PUT -d '{"modules":[{"moduleId":"tags","config":{}}]}' "$BASE/v0/spaces/$space_id/modules" >/dev/null
# Some state to count: 50 items with three tags each out of ten.
for i in $(seq 1 50); do
  json "${auth[@]}" -d "{\"tags\":[\"t$((i % 10))\",\"t$(((i + 3) % 10))\",\"t$(((i + 6) % 10))\"]}" \
    "$BASE/v0/spaces/$space_id/modules/tags/items/item-$i/tags" >/dev/null
done
url="$BASE/v0/spaces/$space_id/modules/tags/counts"
curl -sf "${auth[@]}" "$url" >&2
echo >&2
wrk -t2 -c32 -d5s "${auth[@]}" "$url" >/dev/null
wrk -t2 -c32 -d"${seconds}s" --latency "${auth[@]}" "$url"
