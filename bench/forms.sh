#!/usr/bin/env bash
# POST /v0/forms (a 20-field configuration with logging, two languages and every metadata flag)
# and GET /v0/forms/{id}, at 32 connections on the embedded default.
# Usage: bench/forms.sh [seconds]
source "$(dirname "$0")/common.sh"
seconds="${1:-20}"
testdata=host/src/domain/forms/testdata
python3 -c "import json,sys; print(json.dumps({'config': json.load(open('$testdata/sample_config.json'))}))" >"$DATA/config.json"
curl -sf -H "X-License-Key: $KEY" -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d @"$DATA/config.json" "$BASE/v0/forms/configurations" >/dev/null
# Spaces and workflows are not part of this benchmark.
python3 -c "
import json; p = json.load(open('$testdata/sample_payload.json')); p['payload'].pop('integrations', None)
print(json.dumps(p))" >"$DATA/payload.json"
form_id=$(curl -sf -H "X-License-Key: $KEY" -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d @"$DATA/payload.json" "$BASE/v0/forms" | field '["formId"]')
export BODY_FILE="$DATA/payload.json"

echo "== POST /v0/forms"
wrk -t2 -c32 -d"${seconds}s" --latency -s bench/post_form.lua -H "X-License-Key: $KEY" -H "Authorization: Bearer $TOKEN" "$BASE/v0/forms"
echo "== GET /v0/forms/{id}"
wrk -t2 -c32 -d"${seconds}s" --latency -H "X-License-Key: $KEY" -H "Authorization: Bearer $TOKEN" "$BASE/v0/forms/$form_id"
