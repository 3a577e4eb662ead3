#!/usr/bin/env bash
# Resumable uploads (tus 1.0.0, /v0/media/uploads) against the plain multipart upload, on a release
# server on the embedded default (SQLite, local files):
#  (1) a multipart upload of one large file (default 1 GiB) to a form attachment, as bench/media.sh;
#  (2) the same file as a tus upload in PATCHes of 8 MiB (Python's http.client, the bytes sent with
#      sendfile on one kept-alive connection), then attached with the JSON form of the route.
# Reports MiB/s of both, the ratio (target: tus >= 80% of multipart) and the server's resident memory
# (VmRSS, VmHWM, and the peak VmRSS sampled during each upload; target: flat).
#  (3) 100 tus uploads of one 5 MiB file, each attached: the growth of the media folder (du -sb;
#      target: 5 MiB, identical bytes being stored once).
# Usage: SERVER_BIN=target/release/trellis bench/tus.sh [MiB, default 1024] [PATCH MiB, default 8]
source "$(dirname "$0")/common.sh"
mib="${1:-1024}"
patch_mib="${2:-8}"
testdata=host/src/domain/forms/testdata
python3 - "$testdata/sample_config.json" "$DATA/config.json" <<'PY'
import json, sys
config = json.load(open(sys.argv[1]))
config["id"] = "0b5c9a70-6a7e-4c1b-9d1e-3f1f3b7a2c11"
for page in config["pages"]:
    for field in page["fields"]:
        if field["key"] == "p3_documents":
            field["file"] = {"maxBytes": 4 * 1024 ** 3, "multiple": True, "maxFiles": 1000}
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

# The tus client: creates an upload of FILE, sends it in PATCHes of PATCH_BYTES, attaches it to the
# form's field; COUNT times over. Prints one JSON line: seconds spent uploading (creation and
# PATCHes) and attaching, the PATCH count, and the part keys.
cat >"$DATA/tus.py" <<'PY'
import base64, http.client, json, os, socket, sys, time, urllib.parse
base, key, token, form_id, field_id, path, patch_bytes, count = sys.argv[1:]
patch_bytes, count = int(patch_bytes), int(count)
url = urllib.parse.urlsplit(base)
conn = http.client.HTTPConnection(url.hostname, url.port, timeout=600)
conn.connect()
conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
auth = {"X-License-Key": key, "Authorization": f"Bearer {token}", "Tus-Resumable": "1.0.0"}
size = os.path.getsize(path)
b64 = lambda s: base64.b64encode(s.encode()).decode()
metadata = f"filename {b64(os.path.basename(path))},contentType {b64('application/octet-stream')}"

def call(method, target, headers, body=None):
    conn.request(method, target, body=body, headers=headers)
    response = conn.getresponse()
    return response, response.read()

uploading = attaching = 0.0
patches, part_keys = 0, []
with open(path, "rb") as source:
    for _ in range(count):
        start = time.monotonic()
        response, body = call("POST", "/v0/media/uploads",
                              {**auth, "Upload-Length": str(size), "Upload-Metadata": metadata})
        assert response.status == 201, (response.status, body)
        location, upload_id = response.getheader("Location"), json.loads(body)["uploadId"]
        offset = int(response.getheader("Upload-Offset"))
        while offset < size:
            length = min(patch_bytes, size - offset)
            conn.putrequest("PATCH", location, skip_accept_encoding=True)
            for name, value in {**auth, "Content-Type": "application/offset+octet-stream",
                                "Upload-Offset": str(offset), "Content-Length": str(length)}.items():
                conn.putheader(name, value)
            conn.endheaders()
            sent = conn.sock.sendfile(source, offset, length)
            assert sent == length, (sent, length)
            response = conn.getresponse()
            body = response.read()
            assert response.status == 204, (response.status, body)
            assert int(response.getheader("Upload-Offset")) == offset + length, response.getheaders()
            offset += length
            patches += 1
        attach = time.monotonic()
        uploading += attach - start
        response, body = call("POST", f"/v0/media/forms/{form_id}/attachments",
                              {**auth, "Content-Type": "application/json"},
                              json.dumps({"fieldIds": [field_id], "uploadIds": [upload_id]}))
        assert response.status == 201, (response.status, body)
        part_keys.append(json.loads(body)["attachments"][0]["partKey"])
        attaching += time.monotonic() - attach
print(json.dumps({"uploading": uploading, "attaching": attaching, "patches": patches, "partKeys": part_keys}))
PY
tus() { python3 "$DATA/tus.py" "$BASE" "$KEY" "$TOKEN" "$form_id" "$field_id" "$@"; }

# The file to upload lives on the same disk; random bytes so nothing compresses or dedupes.
src="$DATA/source.bin"
head -c $((mib * 1024 * 1024)) /dev/urandom >"$src"
sync
status() { awk -v key="$1:" '$1 == key {print $2}' "/proc/$SERVER_PID_FOR_PS/status"; }
memory() { echo "VmRSS $(( $(status VmRSS) / 1024 )) MiB, VmHWM $(( $(status VmHWM) / 1024 )) MiB"; }
# The peak VmRSS while a step runs, sampled every 0.1 s: start_sampler, the step, then stop_sampler
# sets PEAK (KiB).
start_sampler() {
  rm -f "$DATA/sampler.stop"; status VmRSS >"$DATA/sampler.peak"
  ( peak=$(status VmRSS); while kill -0 "$SERVER_PID_FOR_PS" 2>/dev/null && [ ! -e "$DATA/sampler.stop" ]; do
      now=$(status VmRSS); [ "$now" -gt "$peak" ] && peak=$now
      echo "$peak" >"$DATA/sampler.next"; mv "$DATA/sampler.next" "$DATA/sampler.peak"; sleep 0.1; done ) &
  SAMPLER=$!
}
# The memory line of a step: VmRSS and VmHWM before it ($rss_before, $hwm_before), the peak VmRSS
# during it ($1) and its growth over VmRSS before, and VmRSS and VmHWM after.
report_memory() {
  echo "memory: before VmRSS $((rss_before / 1024)) MiB, VmHWM $((hwm_before / 1024)) MiB;" \
    "peak VmRSS during $(($1 / 1024)) MiB (growth $((($1 - rss_before) / 1024)) MiB); after $(memory)"
}
stop_sampler() { touch "$DATA/sampler.stop"; wait "$SAMPLER" 2>/dev/null || true; PEAK=$(cat "$DATA/sampler.peak"); }

echo "== server memory at the start: $(memory)"
echo "== (1) multipart upload of ${mib} MiB"
rss_before=$(status VmRSS)
hwm_before=$(status VmHWM)
start_sampler
start=$(date +%s.%N)
response=$(curl -sS "${auth[@]}" -F "fieldIds=$field_id" -F "files=@$src;type=application/octet-stream;filename=big.bin" \
  "$BASE/v0/media/forms/$form_id/attachments")
end=$(date +%s.%N)
stop_sampler; multipart_peak=$PEAK
echo "$response" | field '["attachments"][0]["partKey"]' >/dev/null
multipart_seconds=$(python3 -c "print($end - $start)")
python3 -c "s=$multipart_seconds; print(f'multipart: {s:.2f} s, {$mib/s:.0f} MiB/s')"
report_memory "$multipart_peak"
sync

echo "== (2) tus upload of ${mib} MiB in PATCHes of ${patch_mib} MiB, then the JSON attach"
rss_before=$(status VmRSS)
hwm_before=$(status VmHWM)
start_sampler
tus_result=$(tus "$src" $((patch_mib * 1024 * 1024)) 1)
stop_sampler; tus_peak=$PEAK
python3 - "$tus_result" "$mib" "$multipart_seconds" <<'PY'
import json, sys
result, mib, multipart = json.loads(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
up, attach = result["uploading"], result["attaching"]
print(f"tus: {result['patches']} PATCHes in {up:.2f} s ({mib / up:.0f} MiB/s), attach {attach:.2f} s; "
      f"with the attach {up + attach:.2f} s, {mib / (up + attach):.0f} MiB/s")
ratio = multipart / (up + attach)
print(f"tus (with the attach) / multipart: {ratio:.0%} (target >= 80%: {'met' if ratio >= 0.8 else 'NOT met'})")
PY
report_memory "$tus_peak"
part_key=$(echo "$tus_result" | field '["partKeys"][0]')
curl -sS "${auth[@]}" -o "$DATA/download.bin" "$BASE/v0/media/forms/$form_id/attachments/$part_key"
cmp "$src" "$DATA/download.bin" && echo "the tus upload downloads byte for byte"
rm -f "$DATA/download.bin" "$src"
sync

echo "== (3) 100 tus uploads of one 5 MiB file, each attached"
small="$DATA/small.bin"
head -c $((5 * 1024 * 1024)) /dev/urandom >"$small"
media_before=$(du -sb "$DATA/media" | cut -f1)
start=$(date +%s.%N)
small_result=$(tus "$small" $((patch_mib * 1024 * 1024)) 100)
end=$(date +%s.%N)
media_after=$(du -sb "$DATA/media" | cut -f1)
python3 - "$small_result" "$start" "$end" "$media_before" "$media_after" <<'PY'
import json, sys
result, start, end, before, after = json.loads(sys.argv[1]), *map(float, sys.argv[2:4]), *map(int, sys.argv[4:6])
print(f"{len(result['partKeys'])} uploads in {end - start:.1f} s ({len(result['partKeys']) / (end - start):.1f}/s)")
growth = (after - before) / 2**20
print(f"media folder: {before / 2**20:.1f} MiB before, {after / 2**20:.1f} MiB after: growth {growth:.1f} MiB "
      f"(target 5 MiB: {'met' if growth < 5.5 else 'NOT met'})")
PY
echo "server memory at the end: $(memory)"
