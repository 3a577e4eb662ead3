#!/usr/bin/env bash
# Times a newcomer's path in one language, in a fresh temporary directory, with the commands docs/modules.md
# and `trellis module new` print: scaffold, tools, unit tests, build, check, then `trellis module dev`
# (serve with a user and a space that has the module connected) up to the first answered route call.
#
# With --poll, the scaffold becomes the poll example of plugins/examples (its sources copied in, as an author
# would write them), `module dev` signs up 20 users with the poll's configuration, and the script times the
# scenario of issue 32 (20 first votes, then 100 re-votes at once, every total checked) and a reload after
# an edit (the change seen, rebuilt, compiled, serving).
#
# Usage: bench/newcomer.sh rust|js|python [--poll]   (TRELLIS: the binary, default target/debug/trellis)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
lang=$1; poll=${2:-}
T=${TRELLIS:-$repo/target/debug/trellis}
[ -x "$T" ] || cargo build --locked -p trellis --manifest-path "$repo/Cargo.toml"
work=$(mktemp -d); cd "$work"
step() { local label=$1; shift; local s=$(date +%s.%N); "$@" > "$work/$label.log" 2>&1; local e=$(date +%s.%N); printf '%-34s %6.1f s\n' "$label" "$(echo "$e - $s" | bc)"; }
examples=$repo/plugins/examples
case $lang in
  rust) name=greeter; [ -n "$poll" ] && name=poll ;;
  js) name=greeter; [ -n "$poll" ] && name=poll-js ;;
  python) name=greeter; [ -n "$poll" ] && name=poll-py ;;
  *) echo "usage: $0 rust|js|python [--poll]" >&2; exit 2 ;;
esac
start=$(date +%s.%N)
case $lang in
js)
  step "new" $T module new $name --lang js
  cd $name
  if [ -n "$poll" ]; then
    sed 's#\.\./\.\./\.\./sdk-js/src/#./sdk/#' "$examples/poll-js/module.js" > module.js
    sed 's#\.\./\.\./\.\./sdk-js/src/#./sdk/#' "$examples/poll-js/module.test.js" > module.test.js
  fi
  step "npm ci" npm ci
  step "npm test" npm test
  step "npm run build" npm run build
  edit=module.js ;;
python)
  step "new" $T module new $name --lang python
  cd $name
  if [ -n "$poll" ]; then
    cp "$examples/poll-py/poll.py" . && cp "$examples/poll-py/app.py" .
    rm tests/test_module.py module.py && cp "$examples/poll-py/tests/test_poll.py" tests/
  fi
  step "venv + pip install" sh -c 'python3 -m venv .venv && .venv/bin/pip install -q --require-hashes -r requirements.txt'
  step "unittest" .venv/bin/python -m unittest
  step "build.sh" ./build.sh
  edit=app.py ;;
rust)
  step "new" $T module new $name --sdk-path "$repo/plugin-sdk"
  cd $name
  [ -n "$poll" ] && cp "$examples/poll/src/lib.rs" src/lib.rs
  step "cargo test-native" cargo test-native
  step "cargo build --release" cargo build --release
  edit=src/lib.rs ;;
esac
step "module check ." $T module check .
s=$(date +%s.%N)
args=(--listen 127.0.0.1:0)
[ -n "$poll" ] && args+=(--users 20 --config '{"options":["red","green","blue"]}')
$T module dev "${args[@]}" > dev.out 2> dev.err &
dev=$!
trap 'kill $dev 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 600); do grep -q "curl .*/modules/$name/" dev.out 2>/dev/null && break; sleep 0.5; done
line=$(grep -m1 "curl .*/modules/$name/" dev.out)
eval "$(grep -m1 '^export BASE=' dev.out)"
eval "${line/curl /curl -s }${poll:+results}" > call.out
e=$(date +%s.%N)
printf '%-34s %6.1f s\n' "dev: serve, connect, call" "$(echo "$e - $s" | bc)"
printf '%-34s %6.1f s\n' "total" "$(echo "$e - $start" | bc)"
echo "answer: $(cat call.out)"
[ -n "$poll" ] || exit 0

# The scenario: every user votes, then 100 re-votes at once (5 per user), then the totals.
url=$BASE/v0/spaces/$SPACE/modules/$name
tokens=("$TOKEN"); for n in $(seq 2 20); do v=TOKEN_$n; tokens+=("${!v}"); done
vote() { # TOKEN OPTION -> the final status; a 429 is retried after its Retry-After (1 s), as clients do
  local code
  for _ in $(seq 1 60); do
    code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "X-License-Key: $KEY" -H "Authorization: Bearer $1" \
      -H 'Content-Type: application/json' -d "{\"option\":\"$2\"}" "$url/vote")
    [ "$code" = 429 ] || break
    echo 429 >> "$retries"; sleep 1
  done
  echo "$code"
}
retries=$work/retries; : > "$retries"
export -f vote; export url KEY retries
s=$(date +%s.%N)
printf '%s red\n' "${tokens[@]}" | xargs -P 20 -n 2 bash -c 'vote "$0" "$1"' > first.out
options=(red green blue)
for i in $(seq 0 99); do echo "${tokens[$((i % 20))]} ${options[$(((i * 7 / 20) % 3))]}"; done \
  | xargs -P 100 -n 2 bash -c 'vote "$0" "$1"' > burst.out
e=$(date +%s.%N)
results=$(curl -s -H "X-License-Key: $KEY" -H "Authorization: Bearer $TOKEN" "$url/results")
printf '%-34s %6.1f s\n' "20 votes, then 100 re-votes at once" "$(echo "$e - $s" | bc)"
echo "first votes: $(sort first.out | uniq -c | xargs); re-votes: $(sort burst.out | uniq -c | xargs); 429s retried: $(wc -l < "$retries")"
echo "results: $results"
python3 - "$results" <<'EOF'
import json, sys
results = json.loads(sys.argv[1])
assert results["voters"] == 20 and sum(results["counts"].values()) == 20, f"totals not exact: {results}"
EOF

# A reload: an edit, seen, rebuilt, compiled and serving (the port keeps answering meanwhile).
s=$(date +%s.%N)
comment="//"; [ "$lang" = python ] && comment="#"
echo "$comment edited $(date)" >> $edit
for _ in $(seq 1 1200); do grep -q "^reloaded" dev.out && break; sleep 0.1; done
e=$(date +%s.%N)
printf '%-34s %6.1f s   (%s)\n' "reload after an edit" "$(echo "$e - $s" | bc)" "$(grep -m1 '^built in' dev.out || true)"
