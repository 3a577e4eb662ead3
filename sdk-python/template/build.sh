#!/usr/bin/env sh
# Builds {{wasm}}.wasm, the component: componentize-py (see requirements.txt) on PATH or in $VIRTUAL_ENV.
set -eu
cd "$(dirname "$0")"
# The project's own virtual environment, when there is one (`trellis module dev` runs this without it active).
[ -x .venv/bin/componentize-py ] && PATH="$PWD/.venv/bin:$PATH"
componentize-py -q -d wit -w space-module componentize -p . app -o {{wasm}}.wasm
echo "built $(pwd)/{{wasm}}.wasm"
