#!/usr/bin/env bash
# Uploads and downloads one large file (default 1 GiB) through the attachment routes of a release
# server on the embedded default (SQLite, local files), and compares with what `dd` writes to the
# same disk. Reports throughput and the server's peak resident memory before and after.
# Usage: bench/media.sh [MiB]
source "$(dirname "$0")/common.sh"
mib="${1:-1024}"
testdata=host/src/domain/forms/testdata
python3 - "$testdata/sample_config.json" "$DATA/config.json" <<'PY'
import json, sys
config = json.load(open(sys.argv[1]))
config["id"] = "0b5c9a70-6a7e-4c1b-9d1e-3f1f3b7a2c11"
for page in config["pages"]:
    for field in page["fields"]:
        if field["key"] == "p3_documents":
            field["file"] = {"maxBytes": 4 * 1024 ** 3, "multiple": True, "maxFiles": 100}
json.dump({"config": config}, open(sys.argv[2], "w"))
PY
auth=(-H "X-License-Key: $KEY" -H "Authorization: Bearer $TOKEN")
curl -sf "${auth[@]}" -H 'Content-Type: application/json' -d @"$DATA/config.json" "$BASE/v0/forms/configurations" >/dev/null
python3 -c "
import json; p = json.load(open('$testdata/sample_payload.json')); p['payload'].pop('integrations', None)
p['payload']['configurationId'] = '0b5c9a70-6a7e-4c1b-9d1e-3f1f3b7a2c11'
print(json.dumps(p))" >"$DATA/payload.json"
form_id=$(curl -sf "${auth[@]}" -H 'Content-Type: application/json' -d @"$DATA/payload.json" "$BASE/v0/forms" | field '["formId"]')
field_id=ca02135e-92b1-43f2-8ede-0d7ac3baea9e

# The file to upload lives on the same disk; random bytes so nothing compresses or dedupes.
src="$DATA/source.bin"
head -c $((mib * 1024 * 1024)) /dev/urandom >"$src"
sync
hwm() { grep VmHWM "/proc/$SERVER_PID_FOR_PS/status" | awk '{print $2}'; }
rss() { grep VmRSS "/proc/$SERVER_PID_FOR_PS/status" | awk '{print $2}'; }

echo "== dd: ${mib} MiB written to the same disk with fdatasync"
dd if="$src" of="$DATA/dd.bin" bs=1M conv=fdatasync 2>&1 | tail -n 1
rm -f "$DATA/dd.bin"
sync

before=$(hwm)
echo "server peak RSS before: ${before} KiB (current $(rss) KiB)"
echo "== upload ${mib} MiB"
start=$(date +%s.%N)
response=$(curl -sS "${auth[@]}" -F "fieldIds=$field_id" -F "files=@$src;type=application/octet-stream;filename=big.bin" \
  "$BASE/v0/media/forms/$form_id/attachments")
end=$(date +%s.%N)
part_key=$(echo "$response" | field '["attachments"][0]["partKey"]')
python3 -c "s=$end-$start; print(f'upload: {s:.2f} s, {$mib/s:.0f} MiB/s')"
echo "server peak RSS after upload: $(hwm) KiB"

echo "== download ${mib} MiB"
start=$(date +%s.%N)
curl -sS "${auth[@]}" -o "$DATA/download.bin" "$BASE/v0/media/forms/$form_id/attachments/$part_key"
end=$(date +%s.%N)
python3 -c "s=$end-$start; print(f'download (to a file on the same disk): {s:.2f} s, {$mib/s:.0f} MiB/s')"
cmp "$src" "$DATA/download.bin" && echo "download matches the upload"
rm -f "$DATA/download.bin"
start=$(date +%s.%N)
curl -sS "${auth[@]}" -o /dev/null "$BASE/v0/media/forms/$form_id/attachments/$part_key"
end=$(date +%s.%N)
python3 -c "s=$end-$start; print(f'download (to /dev/null): {s:.2f} s, {$mib/s:.0f} MiB/s')"
after=$(hwm)
echo "server peak RSS after download: ${after} KiB; growth $(( (after - before) / 1024 )) MiB"
