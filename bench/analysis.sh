#!/usr/bin/env bash
# The background analysis on the embedded default, with the installed models:
#   - how long analysis-default takes per asset (from each asset's `analysis.steps[].millis`): a
#     1-megapixel photo, and one minute of speech;
#   - GET /v0/users/me under load (wrk -t2 -c32) while nothing is analysed, then while analysis runs,
#     to see what analysis costs requests (target: p99 rises by less than 20 %).
# Needs `trellis models install` (or ./scripts/run) done, espeak-ng and ffmpeg, and scripts/fixtures.
# Usage: bench/analysis.sh [seconds]
seconds="${1:-10}"
models="${TRELLIS_MODELS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/trellis/models}"
fixtures="${TRELLIS_FIXTURES:-${XDG_CACHE_HOME:-$HOME/.cache}/trellis/fixtures}"
export TRELLIS_ANALYSIS__MODELS_DIR="$models" TRELLIS_ANALYSIS__WORKERS=1
SERVER_CONFIG=$(mktemp --suffix=.toml)
printf '[plans.default]\n"spaces.publishedAssets.perDay" = 100000000\n' >"$SERVER_CONFIG"
export SERVER_CONFIG
source "$(dirname "$0")/common.sh"
trap 'kill $SERVER_PID 2>/dev/null; wait $SERVER_PID 2>/dev/null; rm -rf "$DATA" "$SERVER_CONFIG"' EXIT
auth=(-H "X-License-Key: $KEY" -H "Authorization: Bearer $TOKEN")

# Inputs: each fixture photo scaled to about one megapixel, and a minute of speech.
photo=$(find "$fixtures" -name '*.jpg' | head -n 1)
[ -n "$photo" ] || { echo "no fixture photos: run scripts/fixtures" >&2; exit 1; }
n=0
for jpg in $(find "$fixtures" -name '*.jpg' | sort); do
  n=$((n + 1))
  ffmpeg -v error -y -i "$jpg" -vf "scale=1155:866" -q:v 3 "$DATA/photo-$n.jpg"
done
text="The committee met on Tuesday to discuss the budget for the coming year. After a long debate, the members agreed to spend more on schools and roads, and less on new offices. The chair thanked everyone for their patience and closed the meeting just before six."
minute=""
for _ in 1 2 3 4; do minute="$minute $text"; done
espeak-ng -s 160 -w "$DATA/minute.wav" "$minute"
python3 - "$DATA/minute.wav" <<'PY'
import sys, wave
w = wave.open(sys.argv[1]); print(f"speech: {w.getnframes() / w.getframerate():.1f} s")
PY

space_id=$(json -H "Authorization: Bearer $TOKEN" -d '{"name":"bench-analysis","displayName":"Bench"}' \
  "$BASE/v0/spaces" | field '["spaceId"]')
# Announces, uploads and approves one file; prints the asset id.
propose() {
  local file=$1 type=$2 name
  name=$(basename "$file")
  local asset
  asset=$(json -H "Authorization: Bearer $TOKEN" -d "{\"title\":\"$name\",\"filename\":\"$name\",\"contentType\":\"$type\"}" \
    "$BASE/v0/spaces/$space_id/assets" | field '["newPublishedAssetId"]')
  curl -sf "${auth[@]}" -F "file=@$file;type=$type" "$BASE/v0/media/spaces/$space_id/assets/$asset" >/dev/null
  json -X PATCH -H "Authorization: Bearer $TOKEN" -d "{\"assetId\":\"$asset\",\"state\":\"APPROVED\"}" \
    "$BASE/v0/spaces/$space_id/assets" >/dev/null
  echo "$asset"
}
wait_all() {
  while :; do
    local pending
    pending=$(curl -sf "${auth[@]}" "$BASE/v0/spaces/$space_id/assets?limit=200" |
      python3 -c "import sys, json; print(sum(1 for a in json.load(sys.stdin)['items'] if a['analysis'] and a['analysis']['state'] in ('QUEUED', 'RUNNING')))")
    [ "$pending" = 0 ] && return
    sleep 0.5
  done
}
report() {
  curl -sf "${auth[@]}" "$BASE/v0/spaces/$space_id/assets?limit=200" | python3 -c '
import sys, json
for a in json.load(sys.stdin)["items"]:
    an = a["analysis"] or {}
    ms = sum(s["millis"] for s in an.get("steps", []))
    print(f"{a[\"filename\"]:>14} {an.get(\"state\")} {ms:>6} ms  tags={an.get(\"tags\")}  {(an.get(\"transcript\") or \"\")[:60]!r} {an.get(\"error\") or \"\"}")'
}

echo "== per asset, one at a time (each asset analysed alone on an idle server)"
for jpg in "$DATA"/photo-*.jpg; do propose "$jpg" image/jpeg >/dev/null; wait_all; done
propose "$DATA/minute.wav" audio/wav >/dev/null; wait_all
report

echo "== GET /v0/users/me, nothing analysed"
wrk -t2 -c32 -d"${seconds}s" --latency "${auth[@]}" "$BASE/v0/users/me"
echo "== GET /v0/users/me while analysis runs"
for _ in $(seq 1 $((seconds / 3 + 2))); do propose "$DATA/minute.wav" audio/wav >/dev/null; done
for jpg in "$DATA"/photo-*.jpg; do propose "$jpg" image/jpeg >/dev/null; done
sleep 1
wrk -t2 -c32 -d"${seconds}s" --latency "${auth[@]}" "$BASE/v0/users/me"
still=$(curl -sf "${auth[@]}" "$BASE/v0/spaces/$space_id/assets?limit=200" |
  python3 -c "import sys, json; print(sum(1 for a in json.load(sys.stdin)['items'] if a['analysis'] and a['analysis']['state'] in ('QUEUED', 'RUNNING')))")
echo "(assets still queued or running when the load ended: $still; 0 would mean the load outlasted the analysis)"
wait_all
