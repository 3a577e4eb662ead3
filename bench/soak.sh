#!/usr/bin/env bash
# Soak: mixed traffic (bench/soak.lua: reads, creates, transitions, avatar uploads, a module route)
# against a release server for a long while, reporting throughput, latency, answers by class and
# the server's resident memory over time.
#
#   bench/soak.sh sqlite   [seconds] [connections]   SQLite and local files (the embedded default)
#   bench/soak.sh postgres [seconds] [connections]   PostgreSQL and a Garage bucket; with FAULTS=1,
#                                                    PostgreSQL restarts at 40 % of the run and
#                                                    Garage at 70 % (503s expected meanwhile)
# Defaults: 600 seconds, 64 connections. Traffic goes to 127.0.0.1 only.
set -euo pipefail
engine="${1:-sqlite}"
seconds="${2:-600}"
connections="${3:-64}"
here="$(cd "$(dirname "$0")" && pwd)"

SERVER_CONFIG=$(mktemp --suffix=.toml)
cat >"$SERVER_CONFIG" <<'EOF'
[rate_limits]
comments_per_user = 4000000000
[plans.default]
"forms.attachments.uploadPerDay" = 1000000000
"forms.configurations.createPerDay" = 1000000
EOF
database=""
if [ "$engine" = postgres ]; then
  database="trellis_soak_$$"
  psql -q -X postgres://postgres@127.0.0.1:5432/postgres -c "create database $database" >/dev/null
  eval "$("$here/../scripts/s3-server" start)"
  cat >>"$SERVER_CONFIG" <<EOF
[database]
url = "postgres://postgres@127.0.0.1:5432/$database"
max_connections = 32
[media]
backend = "s3"
[media.s3]
endpoint = "$S3_ENDPOINT"
region = "$S3_REGION"
bucket = "$S3_BUCKET"
access_key = "$S3_ACCESS_KEY"
secret_key = "$S3_SECRET_KEY"
path_style = true
EOF
fi
export SERVER_CONFIG
source "$here/common.sh"
cleanup() {
  kill "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null
  [ -n "${SAMPLER:-}" ] && kill "$SAMPLER" 2>/dev/null
  if [ -n "$database" ]; then
    "$here/../scripts/s3-server" stop >/dev/null 2>&1 || true
    pkill -f "garage -c $GARAGE_DIR/garage.toml" 2>/dev/null || true
    psql -q -X postgres://postgres@127.0.0.1:5432/postgres -c "drop database if exists $database with (force)" >/dev/null
  fi
  rm -rf "$DATA" "$SERVER_CONFIG"
}
trap cleanup EXIT
auth=(-H "X-License-Key: $KEY" -H "Authorization: Bearer $TOKEN")
jsonauth=("${auth[@]}" -H 'Content-Type: application/json')

# A space with Tags and comments, a form configuration, a workflow and 8,000 items in it.
SPACE=$(curl -sf "${jsonauth[@]}" -d '{"name":"soak","displayName":"Soak"}' "$BASE/v0/spaces" | field '["spaceId"]')
curl -sf -X PUT "${jsonauth[@]}" -d '{"modules":[{"moduleId":"tags","config":{}}]}' "$BASE/v0/spaces/$SPACE/modules" >/dev/null
workflow_fixture
export BODY_FILE="$DATA/payload.json" STOP_AFTER=4000
wrk -t2 -c32 -d20s -s bench/post_form.lua "${jsonauth[@]:0:4}" "$BASE/v0/forms" >/dev/null
split_view_items
python3 -c "
import struct, sys, zlib
def chunk(kind, data): return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))
raw = b''.join(b'\0' + b'\x80\x40\x20' * 32 for _ in range(32))
png = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 32, 32, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b'')
open(sys.argv[1], 'wb').write(png)" "$DATA/avatar.png"
export PAYLOAD_FILE="$DATA/payload.json" AVATAR_FILE="$DATA/avatar.png"
export SPACE

# Resident memory every 30 s.
(
  start=$SECONDS
  while kill -0 "$SERVER_PID" 2>/dev/null; do
    echo "$((SECONDS - start)) $(awk '/VmRSS/ {print $2}' "/proc/$SERVER_PID/status")"
    sleep 30
  done
) >"$DATA/rss.txt" &
SAMPLER=$!

if [ "${FAULTS:-0}" = 1 ] && [ "$engine" = postgres ]; then
  (
    sleep $((seconds * 4 / 10))
    echo "fault at $((seconds * 4 / 10)) s: PostgreSQL restarts" >&2
    version=$(ls /etc/postgresql | sort -V | tail -n 1)
    pg_ctlcluster --skip-systemctl-redirect "$version" main restart
    sleep $((seconds * 3 / 10))
    echo "fault at $((seconds * 7 / 10)) s: Garage restarts" >&2
    kill "$GARAGE_PID"
    while kill -0 "$GARAGE_PID" 2>/dev/null; do sleep 0.2; done
    sleep 2
    "${CARGO_HOME:-$HOME/.cargo}/bin/garage" -c "$GARAGE_DIR/garage.toml" server >>"$GARAGE_DIR/garage.log" 2>&1 &
  ) &
fi

echo "== soak: $engine, $connections connections, $seconds s"
wrk -t2 -c"$connections" -d"${seconds}s" --timeout 30s --latency -s bench/soak.lua "${auth[@]}" "$BASE/"
echo "== resident memory (seconds KiB)"
cat "$DATA/rss.txt"
# Ready again on its own (a restarted service may take a few seconds to answer).
for _ in $(seq 1 30); do
  ready=$(curl -s -o /dev/null -w '%{http_code}' "$BASE/readyz")
  [ "$ready" = 200 ] && break
  sleep 1
done
echo "== /readyz after the run: $ready"
echo "== server errors in the log, by code:"
sed 's/\x1b\[[0-9;]*m//g' "$DATA/server.log" | grep -E 'server error|internal error|panicked' | grep -oE 'code=[A-Za-z]+|internal error|panicked' |
  sort | uniq -c || true
cp "$DATA/server.log" "/tmp/soak-$engine-server.log"
