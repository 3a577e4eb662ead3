#!/usr/bin/env bash
# The marketplace at 32 connections on the embedded default:
#   GET /v0/marketplace/trending (license only, no session) with 10,000 listed spaces, ranked by the
#   bundled rule module in the background; also how long one ranking of the 10,000 takes.
# Usage: bench/marketplace.sh [seconds] [listings]
seconds="${1:-10}"
listings="${2:-10000}"
# The ranking's own log line says how long it took.
# Eleven sign-ups from one address: lift the per-address mail and PIN limits.
export TRELLIS_RATE_LIMITS__MAIL_PER_ADDRESS=1000 TRELLIS_RATE_LIMITS__PIN_PER_ADDRESS=1000
export TRELLIS_LOG__FILTER="warn,trellis::services::marketplace::ranking=debug"
source "$(dirname "$0")/common.sh"

echo "== granting the operator role and listing $listings spaces"
"$SERVER_BIN" admin grant-operator bench --data-dir "$DATA" 2>/dev/null
python3 - "$BASE" "$KEY" "$listings" "$DATA" <<'PY'
import glob, http.client, json, os, re, sys, threading, time, urllib.parse
base, key, wanted, data = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
url = urllib.parse.urlparse(base)

def call(conn, method, path, body, token, expect):
    headers = {"X-License-Key": key, "Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    conn.request(method, path, json.dumps(body), headers)
    response = conn.getresponse()
    answer = json.loads(response.read() or b"null")
    assert response.status == expect, (method, path, response.status, answer)
    return answer

def pin_for(email):
    for _ in range(100):
        for path in sorted(glob.glob(os.path.join(data, "outbox", "*.eml")), key=os.path.getmtime, reverse=True):
            text = open(path).read().replace("\r", "")
            if f"To: {email}" in text:
                return re.search(r"^ +([0-9]{6})$", text, re.M).group(1)
        time.sleep(0.05)
    raise SystemExit(f"no PIN mailed to {email}")

def sign_up(conn, handle):
    email = f"{handle}@example.org"
    body = {"email": email, "handle": handle, "fullName": handle, "displayName": handle}
    signup = call(conn, "POST", "/v0/auth/sign-up/start", body, None, 202)["signupToken"]
    call(conn, "POST", "/v0/auth/sign-up/verify-pin", {"signupToken": signup, "pin": pin_for(email)}, None, 200)
    done = {"signupToken": signup, "password": "bench password 1"}
    return call(conn, "POST", "/v0/auth/sign-up/complete", done, None, 201)["sessionToken"]

conn = http.client.HTTPConnection(url.hostname, url.port)
# A fresh session: the role was granted after the first one was read.
operator = call(conn, "POST", "/v0/auth/login", {"login": "bench", "password": "bench password 1"}, None, 200)["sessionToken"]
# A user owns at most 1,000 spaces: one owner per 1,000 listings.
owners = [sign_up(conn, f"lister{i}") for i in range((wanted + 999) // 1000)]

def worker(owner, first, count):
    conn = http.client.HTTPConnection(url.hostname, url.port)
    for n in range(first, first + count):
        space = call(conn, "POST", "/v0/spaces", {"name": f"listed-{n}", "displayName": f"Listed {n}"}, owner, 201)
        sid = space["spaceId"]
        settings = {"title": f"Listing {n}", "summary": "A space listed for the benchmark.",
                    "categories": ["bench"], "membership": "OPEN", "submit": True}
        call(conn, "PUT", f"/v0/spaces/{sid}/settings/marketplace", settings, owner, 200)
        call(conn, "POST", f"/v0/admin/marketplace/listings/{sid}/decision", {"approved": "YES"}, operator, 200)

threads = [threading.Thread(target=worker, args=(owner, i * 1000, min(1000, wanted - i * 1000)))
           for i, owner in enumerate(owners)]
for t in threads: t.start()
for t in threads: t.join()
PY
# The last approval asks for a ranking; wait until one has seen every listing.
for _ in $(seq 1 600); do
  grep -q "listings=$listings" "$DATA/server.log" 2>/dev/null && break
  sleep 0.5
done
echo "== one ranking of $listings listings (from the server's log)"
grep "ranked the marketplace" "$DATA/server.log" | tail -n 1 | sed 's/\x1b\[[0-9;]*m//g'
echo "== GET /v0/marketplace/trending (first page of 50, no session)"
wrk -t2 -c32 -d"${seconds}s" --latency -H "X-License-Key: $KEY" "$BASE/v0/marketplace/trending"
echo "== GET /v0/marketplace/trending?limit=50&cursor=... (rank 500 on)"
cursor=$(printf '500' | base64 | tr '+/' '-_' | tr -d '=')
wrk -t2 -c32 -d"${seconds}s" --latency -H "X-License-Key: $KEY" "$BASE/v0/marketplace/trending?limit=50&cursor=$cursor"
