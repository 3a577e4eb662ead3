#!/usr/bin/env bash
# Durable 100 KiB attachment uploads (`POST /v0/media/forms/{formId}/attachments`, a different PDF each
# time) at 32 connections on the embedded default, against a single writer storing files the same way
# (write, fsync, rename, folder fsync: bench/single_writer.py) on the same disk in the same run, before
# and after the uploads; prints the ratio to the writers' mean.
#
#   bench/uploads.sh [seconds] [bytes]      defaults: 10 s, 102400 bytes
set -euo pipefail
seconds="${1:-10}"
bytes="${2:-102400}"
SERVER_CONFIG=$(mktemp --suffix=.toml)
cat >"$SERVER_CONFIG" <<'TOML'
[plans.default]
"forms.attachments.uploadPerDay" = 1000000000
"forms.configurations.createPerDay" = 1000000
TOML
export SERVER_CONFIG
source "$(dirname "$0")/common.sh"
trap 'kill $SERVER_PID 2>/dev/null; wait $SERVER_PID 2>/dev/null || true; rm -rf "$DATA" "$SERVER_CONFIG"' EXIT
testdata=host/src/domain/forms/testdata
auth=(-H "X-License-Key: $KEY" -H "Authorization: Bearer $TOKEN")

# Instances of the sample form, whose documents field (p3_documents) takes five PDFs each: enough paths
# for 3,000 uploads a second.
python3 -c "import json; print(json.dumps({'config': json.load(open('$testdata/sample_config.json'))}))" >"$DATA/config.json"
curl -sf "${auth[@]}" -H 'Content-Type: application/json' -d @"$DATA/config.json" "$BASE/v0/forms/configurations" >/dev/null
python3 -c "
import json; p = json.load(open('$testdata/sample_payload.json')); p['payload'].pop('integrations', None)
print(json.dumps(p))" >"$DATA/payload.json"
instances=$(( (seconds * 3000 + 4) / 5 / 2 ))
BODY_FILE="$DATA/payload.json" STOP_AFTER=$instances \
  wrk -t2 -c16 -d120s -s bench/post_form.lua "${auth[@]}" "$BASE/v0/forms" >/dev/null
curl -sf "${auth[@]}" "$BASE/v0/forms/export" | python3 -c "
import json, sys
for line in sys.stdin:
    form = json.loads(line)['formId']
    for _ in range(5): print(f'/v0/media/forms/{form}/attachments')" >"$DATA/paths.txt"
echo "$(wc -l <"$DATA/paths.txt") upload paths"
export PATHS_FILE="$DATA/paths.txt" FIELD_ID=ca02135e-92b1-43f2-8ede-0d7ac3baea9e UPLOAD_BYTES=$bytes

writer() { python3 bench/single_writer.py "$DATA/floor-$1" "$seconds" "$bytes" | awk '{print $2}'; }
echo "== single writer (write, fsync, rename, folder fsync), $bytes bytes"
before=$(writer 1)
echo "$before files/s"
echo "== POST /v0/media/forms/{formId}/attachments, $bytes bytes, 32 connections"
rate=$(wrk -t2 -c32 -d"${seconds}s" --latency -s bench/upload_attachment.lua "${auth[@]}" "$BASE" | tee -a /dev/stderr \
  | awk '/Requests\/sec/ {print $2}')
sleep 5  # let the server's background writes (checkpoints, removals) settle
echo "== single writer again"
after=$(writer 2)
echo "$after files/s"
python3 -c "print(f'uploads / single writer: {float($rate) / ((float($before) + float($after)) / 2):.0%} ($rate uploads/s; writer $before and $after files/s)')"
