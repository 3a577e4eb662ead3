#!/usr/bin/env bash
# Space comments and published-asset uploads at 32 connections on the embedded default:
#   POST /v0/spaces/{id}/comments;
#   GET /v0/spaces/{id}/comments?limit=50 over at least 100,000 comments (the first page, and a page
#   10,000 comments deep through its cursor);
#   POST /v0/media/spaces/{id}/assets/{assetId} with a 100 KiB PNG (assets announced beforehand).
# Usage: bench/spaces.sh [seconds]
seconds="${1:-10}"
# One benchmark user posts everything: lift the per-user comment pace and the daily asset quota.
export TRELLIS_RATE_LIMITS__COMMENTS_PER_USER=4000000000
SERVER_CONFIG=$(mktemp --suffix=.toml)
printf '[plans.default]\n"spaces.publishedAssets.perDay" = 100000000\n' >"$SERVER_CONFIG"
export SERVER_CONFIG
source "$(dirname "$0")/common.sh"
trap 'kill $SERVER_PID 2>/dev/null; wait $SERVER_PID 2>/dev/null; rm -rf "$DATA" "$SERVER_CONFIG"' EXIT
auth=(-H "X-License-Key: $KEY" -H "Authorization: Bearer $TOKEN")

space_id=$(json -H "Authorization: Bearer $TOKEN" -d '{"name":"bench-comments","displayName":"Bench"}' \
  "$BASE/v0/spaces" | field '["spaceId"]')
echo '{"body": "A comment of ordinary length, about as long as people write them in a space."}' >"$DATA/comment.json"
export BODY_FILE="$DATA/comment.json"
comments="$BASE/v0/spaces/$space_id/comments"

# Each thread stops after 50,000 answers; wrk still runs out its -d, so keep it short.
echo "== fill: 100,000 comments"
STOP_AFTER=50000 wrk -t2 -c32 -d45s -s bench/post_form.lua "${auth[@]}" "$comments" >/dev/null
echo "== POST /v0/spaces/{id}/comments"
wrk -t2 -c32 -d"${seconds}s" --latency -s bench/post_form.lua "${auth[@]}" "$comments"
echo "== GET /v0/spaces/{id}/comments?limit=50 (first page)"
wrk -t2 -c32 -d"${seconds}s" --latency "${auth[@]}" "$comments?limit=50"
cursor=$(curl -sf "${auth[@]}" "$comments?limit=200" | field '["nextCursor"]')
for _ in $(seq 2 50); do cursor=$(curl -sf "${auth[@]}" "$comments?limit=200&cursor=$cursor" | field '["nextCursor"]'); done
echo "== GET /v0/spaces/{id}/comments?limit=50&cursor=... (10,000 comments deep)"
wrk -t2 -c32 -d"${seconds}s" --latency "${auth[@]}" "$comments?limit=50&cursor=$cursor"

# A space holds at most 1,000 assets awaiting upload or approval: announce 900 per space.
wanted=$((seconds * 4000))
echo "== announcing $wanted assets"
python3 - "$BASE" "$KEY" "$TOKEN" "$wanted" >"$DATA/paths.txt" <<'PY'
import http.client, json, sys, urllib.parse
base, key, token, wanted = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
url = urllib.parse.urlparse(base)
conn = http.client.HTTPConnection(url.hostname, url.port)
headers = {"X-License-Key": key, "Authorization": f"Bearer {token}", "Content-Type": "application/json"}
def post(path, body):
    conn.request("POST", path, json.dumps(body), headers)
    response = conn.getresponse()
    answer = json.loads(response.read())
    assert response.status == 201, answer
    return answer
space = None
for n in range(wanted):
    if n % 900 == 0:
        space = post("/v0/spaces", {"name": f"bench-assets-{n // 900}", "displayName": "Bench"})["spaceId"]
    asset = post(f"/v0/spaces/{space}/assets", {"title": "A photo", "filename": "photo.png", "contentType": "image/png"})
    print(f"/v0/media/spaces/{space}/assets/{asset['newPublishedAssetId']}")
PY
python3 - "$DATA/upload.bin" <<'PY'
import sys
png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89"
file = png + bytes((i * 7) % 251 for i in range(100 * 1024 - len(png)))
body = (b"--bench-boundary\r\nContent-Disposition: form-data; name=\"file\"; filename=\"photo.png\"\r\n"
        b"Content-Type: image/png\r\n\r\n" + file + b"\r\n--bench-boundary--\r\n")
open(sys.argv[1], "wb").write(body)
PY
export PATHS_FILE="$DATA/paths.txt" BODY_FILE="$DATA/upload.bin"
echo "== POST /v0/media/spaces/{id}/assets/{assetId}, 100 KiB"
wrk -t2 -c32 -d"${seconds}s" --latency -s bench/upload_asset.lua "${auth[@]}" "$BASE"
