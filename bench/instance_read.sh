#!/usr/bin/env bash
# GET /v0/forms/{formId} (an instance with two attachments) against GET /v0/users/me in the same
# server run, at 32 connections on the embedded default, and the ratio of their rates.
# Usage: bench/instance_read.sh [seconds]
source "$(dirname "$0")/common.sh"
seconds="${1:-15}"
testdata=host/src/domain/forms/testdata
auth=(-H "X-License-Key: $KEY" -H "Authorization: Bearer $TOKEN")
python3 -c "import json; print(json.dumps({'config': json.load(open('$testdata/sample_config.json'))}))" >"$DATA/config.json"
curl -sf "${auth[@]}" -H 'Content-Type: application/json' -d @"$DATA/config.json" "$BASE/v0/forms/configurations" >/dev/null
python3 -c "
import json; p = json.load(open('$testdata/sample_payload.json')); p['payload'].pop('integrations', None)
print(json.dumps(p))" >"$DATA/payload.json"
form_id=$(curl -sf "${auth[@]}" -H 'Content-Type: application/json' -d @"$DATA/payload.json" "$BASE/v0/forms" | field '["formId"]')
# The sample's documents field (p3_documents) takes PDFs.
field_id=ca02135e-92b1-43f2-8ede-0d7ac3baea9e
printf '%%PDF-1.4\n%% bench\n' >"$DATA/a.pdf"
curl -sf "${auth[@]}" -F "fieldIds=$field_id" -F "files=@$DATA/a.pdf;type=application/pdf" \
  -F "fieldIds=$field_id" -F "files=@$DATA/a.pdf;type=application/pdf" \
  "$BASE/v0/media/forms/$form_id/attachments" >/dev/null || echo "(attachments not uploaded)"

rate() { awk '/Requests\/sec/ {print $2}'; }
wrk -t2 -c32 -d5s "${auth[@]}" "$BASE/v0/users/me" >/dev/null
echo "== GET /v0/users/me"
me=$(wrk -t2 -c32 -d"${seconds}s" --latency "${auth[@]}" "$BASE/v0/users/me" | tee /dev/stderr | rate)
echo "== GET /v0/forms/{formId}"
form=$(wrk -t2 -c32 -d"${seconds}s" --latency "${auth[@]}" "$BASE/v0/forms/$form_id" | tee /dev/stderr | rate)
python3 -c "print(f'instance read / users/me: {float($form) / float($me):.0%} ($form vs $me req/s)')"
