#!/usr/bin/env bash
# Streaming export (`GET /v0/forms/export`): rows per second and the server's resident memory while
# it streams. Usage: bench/export.sh [instances, default 1000000] [format: jsonl|csv, default jsonl]
#
# The instances are written straight into the embedded database (through the HTTP API it would take
# minutes): copies of one real instance made through the API, each with its own id and times. The
# server is stopped while they are written, then started again on the same data directory.
source "$(dirname "$0")/common.sh"
count="${1:-1000000}"
format="${2:-jsonl}"
auth=(-H "X-License-Key: $KEY" -H "Authorization: Bearer $TOKEN")

forms=host/src/domain/forms/testdata
python3 -c "import json; print(json.dumps({'config': json.load(open('$forms/sample_config.json'))}))" >"$DATA/config.json"
configuration=$(curl -sf "${auth[@]}" -H 'Content-Type: application/json' -d @"$DATA/config.json" \
  "$BASE/v0/forms/configurations" | field '["id"]')
# The sample instance without its integrations (they name a space and a workflow this run has not).
python3 -c "
import json; p = json.load(open('$forms/sample_payload.json')); p['payload'].pop('integrations', None)
print(json.dumps(p))" >"$DATA/payload.json"
curl -sf "${auth[@]}" -H 'Content-Type: application/json' -d @"$DATA/payload.json" "$BASE/v0/forms" >/dev/null

kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true
python3 - "$DATA/trellis.db" "$count" <<'PY'
import sqlite3, sys, uuid
db, count = sys.argv[1], int(sys.argv[2])
con = sqlite3.connect(db)
row = con.execute("select configuration_id, owner_id, state, language, answers, metadata, integrations, "
                  "created_at from form_instance").fetchone()
configuration_id, owner_id, state, language, answers, metadata, integrations, at = row
batch = []
for n in range(1, count):
    batch.append((str(uuid.uuid4()), configuration_id, owner_id, state, language, answers, metadata, integrations,
                  at + n, at + n))
    if len(batch) == 50_000:
        con.executemany("insert into form_instance (form_id, configuration_id, owner_id, state, language, answers, "
                        "metadata, integrations, revision, created_at, updated_at) "
                        "values (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)", batch)
        batch.clear()
if batch:
    con.executemany("insert into form_instance (form_id, configuration_id, owner_id, state, language, answers, "
                    "metadata, integrations, revision, created_at, updated_at) "
                    "values (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)", batch)
con.commit()
print(f"{con.execute('select count(*) from form_instance').fetchone()[0]} instances", file=sys.stderr)
# The warm-up below exports the newest tenth: rows changed at or after this time.
import datetime
warm = datetime.datetime.fromtimestamp((at + count * 9 // 10) / 1000, datetime.timezone.utc)
open(db + ".warm", "w").write(warm.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z")
PY
warm_since=$(cat "$DATA/trellis.db.warm")

TRELLIS_LOG__FILTER=warn "$SERVER_BIN" serve --data-dir "$DATA" --listen "127.0.0.1:$PORT" 2>>"$DATA/server.log" &
SERVER_PID=$!
trap 'kill $SERVER_PID 2>/dev/null; wait $SERVER_PID 2>/dev/null; rm -rf "$DATA"' EXIT
for _ in $(seq 1 100); do curl -sf "$BASE/healthz" >/dev/null && break; sleep 0.1; done

rss() { awk '/VmRSS/ {print $2}' "/proc/$SERVER_PID/status"; }
# Warm-up: an export of the newest tenth of the rows fills what a server keeps whatever it exports
# (SQLite's page caches on its read connections, the allocator's pools, the connection's buffers),
# so that the growth measured next is what the export of all the rows adds.
fresh=$(rss)
warm_lines=$(curl -sf "${auth[@]}" "$BASE/v0/forms/export?format=$format&configurationId=$configuration&updatedSince=$warm_since" | wc -l)
before=$(rss)
echo "warm-up: $warm_lines lines; resident memory $((fresh / 1024)) MiB before it, $((before / 1024)) MiB after" >&2
( peak=$before; while kill -0 "$SERVER_PID" 2>/dev/null && [ ! -e "$DATA/done" ]; do
    now=$(rss); [ "$now" -gt "$peak" ] && peak=$now; echo "$peak" >"$DATA/peak"; sleep 0.2; done ) &
sampler=$!
start=$(date +%s.%N)
lines=$(curl -sfN "${auth[@]}" "$BASE/v0/forms/export?format=$format&configurationId=$configuration" | wc -l)
end=$(date +%s.%N)
touch "$DATA/done"; wait "$sampler" 2>/dev/null || true
peak=$(cat "$DATA/peak")
python3 - "$lines" "$start" "$end" "$before" "$peak" "$format" <<'PY'
import sys
lines, start, end, before, peak, fmt = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
rows = lines - (1 if fmt == "csv" else 0)
seconds = end - start
print(f"{rows} rows ({fmt}) in {seconds:.1f} s: {rows / seconds:,.0f} rows/s; "
      f"resident memory {before / 1024:.1f} MiB before, peak {peak / 1024:.1f} MiB (growth {(peak - before) / 1024:.1f} MiB)")
PY
