#!/usr/bin/env bash
# GET /v0/users/me (license check, session check, profile read) at 32 connections on the
# embedded default (SQLite). Usage: bench/users_me.sh [seconds]
source "$(dirname "$0")/common.sh"
seconds="${1:-20}"
wrk -t2 -c32 -d5s -H "X-License-Key: $KEY" -H "Authorization: Bearer $TOKEN" "$BASE/v0/users/me" >/dev/null
wrk -t2 -c32 -d"${seconds}s" --latency -H "X-License-Key: $KEY" -H "Authorization: Bearer $TOKEN" "$BASE/v0/users/me"
