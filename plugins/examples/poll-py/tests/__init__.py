"""The example uses the SDK from the repository's `sdk-python/` (a scaffolded module has its own copy)."""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[4] / "sdk-python"))
