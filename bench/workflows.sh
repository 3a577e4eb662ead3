#!/usr/bin/env bash
# Workflow benchmarks on the embedded default, 32 connections:
#   1. GET /v0/workflows/views/{viewId}/items (a page of 50) over 100,000 items in one view;
#   2. POST /v0/workflows/items/{itemId}/transitions, items moving intake -> review -> intake.
# Usage: bench/workflows.sh [seconds] [items]
source "$(dirname "$0")/common.sh"
seconds="${1:-15}"
items="${2:-100000}"
forms=host/src/domain/forms/testdata
workflow_doc=host/src/domain/workflows/testdata/sample_workflow.json
auth=(-H "X-License-Key: $KEY" -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json')

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
# Each instance names the workflow, so creating it also starts the workflow.
python3 -c "
import json; p = json.load(open('$forms/sample_payload.json'))
p['payload']['integrations'] = {'workflowConfigurationId': '$WF'}
print(json.dumps(p))" >"$DATA/payload.json"

echo "== filling view: $items items (POST /v0/forms with a workflow start)"
export BODY_FILE="$DATA/payload.json" STOP_AFTER=$((items / 2))
# wrk keeps running for -d after its threads stop, so the duration allows ~1,200 creates/s.
wrk -t2 -c32 -d"$((items / 1200 + 5))s" -s bench/post_form.lua "${auth[@]:0:4}" "$BASE/v0/forms" | grep -E 'requests in|Non-2xx'
# nextCursor paging would also work; counting rows is quicker.
echo "items in the view: $(sqlite3 "$DATA/trellis.db" 'select count(*) from workflow_item' 2>/dev/null || echo '(sqlite3 not installed)')"

echo "== GET /v0/workflows/views/{viewId}/items, page of 50"
wrk -t2 -c32 -d"${seconds}s" --latency "${auth[@]:0:4}" "$BASE/v0/workflows/views/$V1/items?workflowConfigurationId=$WF&limit=50"

echo "== POST /v0/workflows/items/{itemId}/transitions"
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
export ITEMS_PREFIX="$DATA/items-" WF V1 V2 TO_REVIEW BACK_TO_INTAKE
wrk -t2 -c32 -d"${seconds}s" --latency -s bench/transitions.lua "${auth[@]:0:4}" "$BASE/"
