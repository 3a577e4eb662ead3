#!/usr/bin/env bash
# Workflow benchmarks on the embedded default, 32 connections:
#   1. GET /v0/workflows/views/{viewId}/items (a page of 50) over 100,000 items in one view;
#   2. POST /v0/workflows/items/{itemId}/transitions, items moving intake -> review -> intake.
# Usage: bench/workflows.sh [seconds] [items]
source "$(dirname "$0")/common.sh"
seconds="${1:-15}"
items="${2:-100000}"
auth=(-H "X-License-Key: $KEY" -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json')
workflow_fixture

echo "== filling view: $items items (POST /v0/forms with a workflow start)"
export BODY_FILE="$DATA/payload.json" STOP_AFTER=$((items / 2))
# wrk keeps running for -d after its threads stop, so the duration allows ~1,200 creates/s.
wrk -t2 -c32 -d"$((items / 1200 + 5))s" -s bench/post_form.lua "${auth[@]:0:4}" "$BASE/v0/forms" | grep -E 'requests in|Non-2xx'
# nextCursor paging would also work; counting rows is quicker.
echo "items in the view: $(sqlite3 "$DATA/trellis.db" 'select count(*) from workflow_item' 2>/dev/null || echo '(sqlite3 not installed)')"

echo "== GET /v0/workflows/views/{viewId}/items, page of 50"
wrk -t2 -c32 -d"${seconds}s" --latency "${auth[@]:0:4}" "$BASE/v0/workflows/views/$V1/items?workflowConfigurationId=$WF&limit=50"

echo "== POST /v0/workflows/items/{itemId}/transitions"
split_view_items
wrk -t2 -c32 -d"${seconds}s" --latency -s bench/transitions.lua "${auth[@]:0:4}" "$BASE/"
