#!/usr/bin/env sh
# Builds {{wasm}}.wasm, the component: componentize-py (see requirements.txt) on PATH or in $VIRTUAL_ENV.
set -eu
cd "$(dirname "$0")"
componentize-py -q -d wit -w space-module componentize -p . app -o {{wasm}}.wasm
echo "built $(pwd)/{{wasm}}.wasm"
