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
# A second account, handle `peer`, signed up like the first; prints its session token.
second_user() {
  local signup_token pin
  signup_token=$(json -d '{"email":"peer@example.org","handle":"peer","fullName":"Peer User","displayName":"Peer"}' \
    "$BASE/v0/auth/sign-up/start" | field '["signupToken"]')
  pin=$(grep -l '^To: peer@example.org' "$DATA"/outbox/*.eml | xargs cat | tr -d '\r' | grep -oE '^ +[0-9]{6}$' | tr -d ' ' | tail -n 1)
  json -d "{\"signupToken\":\"$signup_token\",\"pin\":\"$pin\"}" "$BASE/v0/auth/sign-up/verify-pin" >/dev/null
  json -d "{\"signupToken\":\"$signup_token\",\"password\":\"bench password 1\"}" \
    "$BASE/v0/auth/sign-up/complete" | field '["sessionToken"]'
}
SERVER_PID_FOR_PS=$SERVER_PID
export BASE KEY TOKEN DATA SERVER_PID_FOR_PS

# The workflow fixture of bench/workflows.sh and bench/soak.sh: the sample form configuration and
# workflow, and $DATA/payload.json (the sample instance, naming the workflow so that creating it
# also starts the workflow). Exports WF (the workflow's id), V1 and V2 (its views), TO_REVIEW and
# BACK_TO_INTAKE (a transition out of the entry workbasket and one back).
workflow_fixture() {
  local forms=host/src/domain/forms/testdata workflow_doc=host/src/domain/workflows/testdata/sample_workflow.json
  local auth=(-H "X-License-Key: $KEY" -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json')
  python3 -c "import json; print(json.dumps({'config': json.load(open('$forms/sample_config.json'))}))" >"$DATA/config.json"
  curl -sf "${auth[@]}" -d @"$DATA/config.json" "$BASE/v0/forms/configurations" >/dev/null
  python3 -c "import json; print(json.dumps({'config': json.load(open('$workflow_doc'))}))" >"$DATA/workflow.json"
  curl -sf "${auth[@]}" -d @"$DATA/workflow.json" "$BASE/v0/workflows/configurations" >/dev/null
  read -r WF V1 V2 TO_REVIEW BACK_TO_INTAKE < <(python3 -c "
import json; w = json.load(open('$workflow_doc'))
views = {v['permissionSlot']: v['id'] for v in w['views']}
entry = w['network']['entryWorkbasketId']
baskets = {b['id']: b for b in w['network']['workbaskets']}
forward = baskets[entry]['transitions'][0]
back = [t for t in baskets[forward['targetWorkbasketId']]['transitions'] if t['targetWorkbasketId'] == entry][0]
print(w['id'], views[1], views[2], forward['id'], back['id'])")
  python3 -c "
import json; p = json.load(open('$forms/sample_payload.json'))
p['payload']['integrations'] = {'workflowConfigurationId': '$WF'}
print(json.dumps(p))" >"$DATA/payload.json"
  export WF V1 V2 TO_REVIEW BACK_TO_INTAKE
}

# Writes the ids of up to 8,000 items of view $V1 to $DATA/items-0.txt and items-1.txt (alternately,
# one file per wrk thread) and exports ITEMS_PREFIX for bench/transitions.lua and bench/soak.lua.
split_view_items() {
  python3 - "$BASE" "$KEY" "$TOKEN" "$WF" "$V1" "$DATA" <<'PY'
import json, sys, urllib.request
base, key, token, wf, view, data = sys.argv[1:]
ids, cursor = [], None
while len(ids) < 8000:
    url = f"{base}/v0/workflows/views/{view}/items?workflowConfigurationId={wf}&limit=200" + (f"&cursor={cursor}" if cursor else "")
    req = urllib.request.Request(url, headers={"X-License-Key": key, "Authorization": f"Bearer {token}"})
    page = json.load(urllib.request.urlopen(req))
    ids += [item["itemId"] for item in page["items"]]
    cursor = page["nextCursor"]
    if not cursor:
        break
for t in range(2):
    with open(f"{data}/items-{t}.txt", "w") as f:
        f.write("\n".join(ids[t::2]))
PY
  export ITEMS_PREFIX="$DATA/items-"
}
