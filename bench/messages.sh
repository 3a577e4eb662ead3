#!/usr/bin/env bash
# Direct messages at 32 connections on the embedded default:
#   POST /v0/messages (each a new thread from the benchmark user to a second user);
#   POST /v0/messages with a threadId (replies, all in one thread);
#   GET /v0/messages/unread, polled by the recipient of everything sent before;
#   GET /v0/messages/threads?limit=50, the recipient's first page.
# Usage: bench/messages.sh [seconds]
seconds="${1:-10}"
# One benchmark user sends everything: lift the plan's daily messaging quota.
SERVER_CONFIG=$(mktemp --suffix=.toml)
printf '[plans.default]\n"messaging.perDay" = 100000000\n' >"$SERVER_CONFIG"
export SERVER_CONFIG
source "$(dirname "$0")/common.sh"
trap 'kill $SERVER_PID 2>/dev/null; wait $SERVER_PID 2>/dev/null; rm -rf "$DATA" "$SERVER_CONFIG"' EXIT

# The recipient: a second account, signed up like the first.
PEER_TOKEN=$(second_user)

echo '{"to": "peer", "subject": "A question about the garden", "body": "A message of ordinary length, about as long as people write them to each other."}' >"$DATA/message.json"
export BODY_FILE="$DATA/message.json"
sender=(-H "X-License-Key: $KEY" -H "Authorization: Bearer $TOKEN")
recipient=(-H "X-License-Key: $KEY" -H "Authorization: Bearer $PEER_TOKEN")

echo "== POST /v0/messages"
wrk -t2 -c32 -d"${seconds}s" --latency -s bench/post_form.lua "${sender[@]}" "$BASE/v0/messages"
thread_id=$(curl -sf "${recipient[@]}" "$BASE/v0/messages/threads?limit=1" | field '["items"][0]["threadId"]')
echo "{\"threadId\": \"$thread_id\", \"body\": \"A reply of ordinary length, about as long as people write them to each other.\"}" >"$DATA/reply.json"
echo "== POST /v0/messages (replies in one thread)"
BODY_FILE="$DATA/reply.json" wrk -t2 -c32 -d"${seconds}s" --latency -s bench/post_form.lua "${sender[@]}" "$BASE/v0/messages"
echo "unread for the recipient: $(curl -sf "${recipient[@]}" "$BASE/v0/messages/unread")"
echo "== GET /v0/messages/unread"
wrk -t2 -c32 -d5s "${recipient[@]}" "$BASE/v0/messages/unread" >/dev/null
wrk -t2 -c32 -d"${seconds}s" --latency "${recipient[@]}" "$BASE/v0/messages/unread"
echo "== GET /v0/messages/threads?limit=50"
wrk -t2 -c32 -d"${seconds}s" --latency "${recipient[@]}" "$BASE/v0/messages/threads?limit=50"
