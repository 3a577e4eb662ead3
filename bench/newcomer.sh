#!/usr/bin/env bash
# Times a newcomer's path in one language, in a fresh temporary directory, with the commands docs/modules.md
# and `trellis module new` print: scaffold, tools, unit tests, build, check, then `trellis module dev`
# (serve with a user and a space that has the module connected) up to the first answered route call.
# Usage: bench/newcomer.sh rust|js|python [NAME] [ROUTE]   (TRELLIS: the binary, default target/debug/trellis)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
lang=$1; name=${2:-greeter}; route=${3:-hello}
T=${TRELLIS:-$repo/target/debug/trellis}
[ -x "$T" ] || cargo build --locked -p trellis --manifest-path "$repo/Cargo.toml"
work=$(mktemp -d); cd "$work"
step() { local label=$1; shift; local s=$(date +%s.%N); "$@" > "$work/$label.log" 2>&1; local e=$(date +%s.%N); printf '%-28s %6.1f s\n' "$label" "$(echo "$e - $s" | bc)"; }
start=$(date +%s.%N)
case $lang in
js)
  step "new" $T module new $name --lang js
  cd $name
  step "npm ci" npm ci
  step "npm test" npm test
  step "npm run build" npm run build
  step "module check" $T module check $name.wasm
  build="npm run build"; wasm=$name.wasm ;;
python)
  step "new" $T module new $name --lang python
  cd $name
  step "venv + pip install" sh -c 'python3 -m venv .venv && .venv/bin/pip install -q --require-hashes -r requirements.txt'
  step "unittest" python3 -m unittest
  export PATH="$PWD/.venv/bin:$PATH"
  step "build.sh" ./build.sh
  wasm=$(echo $name | tr - _).wasm
  step "module check" $T module check $wasm
  build="./build.sh" ;;
rust)
  step "new" $T module new $name --sdk-path "$repo/plugin-sdk"
  cd $name
  step "cargo test-native" cargo test-native
  step "cargo build --release" cargo build --release
  wasm=target/wasm32-wasip2/release/$(echo $name | tr - _).wasm
  step "module check" $T module check $wasm
  build="" ;;
esac
s=$(date +%s.%N)
if [ -n "$build" ]; then $T module dev --listen 127.0.0.1:0 --build "$build" --wasm $wasm > dev.out 2> dev.err & else $T module dev --listen 127.0.0.1:0 > dev.out 2> dev.err & fi
dev=$!
for _ in $(seq 1 600); do grep -q "curl .*/modules/$name/" dev.out 2>/dev/null && break; sleep 0.5; done
line=$(grep -m1 "curl .*/modules/$name/" dev.out)
eval "${line/curl /curl -s }$route" > call.out
e=$(date +%s.%N)
printf '%-28s %6.1f s\n' "dev: serve, connect, call" "$(echo "$e - $s" | bc)"
kill $dev; wait $dev 2>/dev/null || true
printf '%-28s %6.1f s\n' "total" "$(echo "$e - $start" | bc)"
echo "answer: $(cat call.out)"
rm -rf "$work"
