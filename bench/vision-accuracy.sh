#!/usr/bin/env bash
# Top-3 labels, faces, colours and timings for each real photo of scripts/fixtures (a Markdown table for
# docs/performance.md). Needs the installed label model (`trellis models install`).
set -euo pipefail
cd "$(dirname "$0")/.."
export TRELLIS_FIXTURES
TRELLIS_FIXTURES=$(./scripts/fixtures)
cargo run --quiet --release -p trellis-inference --example vision-accuracy
