#!/usr/bin/env bash
# The read path against the framework's floor, in one run at 32 connections (wrk -t2 -c32): an axum hello
# world (bench/hello.rs), then on the embedded default GET /v0/users/me (license, session, profile) and
# GET /v0/forms/{formId} (an instance with two attachments); prints users/me as a share of the hello world
# and the instance read as a share of users/me.
#
#   bench/read_path.sh [seconds]      default 10; HELLO_BIN names a prebuilt hello world
source "$(dirname "$0")/common.sh"
seconds="${1:-10}"
if [ -z "${HELLO_BIN:-}" ]; then
  cargo build --release --locked -p trellis-tests --bin hello >&2
  HELLO_BIN="${CARGO_TARGET_DIR:-target}/release/hello"
fi
hello_port=$((PORT + 1))
"$HELLO_BIN" "127.0.0.1:$hello_port" &
HELLO_PID=$!
trap 'kill $SERVER_PID $HELLO_PID 2>/dev/null; wait $SERVER_PID $HELLO_PID 2>/dev/null || true; rm -rf "$DATA"' EXIT
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$hello_port/" >/dev/null && break; sleep 0.1; done

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
  "$BASE/v0/media/forms/$form_id/attachments" >/dev/null

rate() { awk '/Requests\/sec/ {print $2}'; }
measure() { wrk -t2 -c32 -d2s "$@" >/dev/null; wrk -t2 -c32 -d"${seconds}s" --latency "$@" | tee -a /dev/stderr | rate; }
echo "== axum hello world"
hello=$(measure "http://127.0.0.1:$hello_port/")
echo "== GET /v0/users/me"
me=$(measure "${auth[@]}" "$BASE/v0/users/me")
echo "== GET /v0/forms/{formId}"
form=$(measure "${auth[@]}" "$BASE/v0/forms/$form_id")
python3 -c "
hello, me, form = float('$hello'), float('$me'), float('$form')
print(f'users/me / hello world: {me / hello:.1%} ({me:.0f} vs {hello:.0f} req/s)')
print(f'instance read / users/me: {form / me:.1%} ({form:.0f} vs {me:.0f} req/s)')"
