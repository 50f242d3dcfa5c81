#!/usr/bin/env bash
# Build the GPU-test harnesses of tests/test_blocks.py here (no GPU needed), into .prebuilt-blocks/, so a device
# call that carries that folder skips minutes of nvcc: KERNELPRO_PREBUILT_BLOCKS=.prebuilt-blocks pytest -m gpu ...
# A library older than its harness source is not used.
set -eu
mkdir -p .prebuilt-blocks
python3 - "$@" <<'PY'
import sys
from pathlib import Path
sys.path.insert(0, "tests")
import test_blocks as tb
names = sys.argv[1:] or [n for n in tb.HARNESSES]
for n in names:
    out = tb.build(n, Path(".prebuilt-blocks").resolve())
    out.rename(out.with_name(f"{n}.{tb._sources_hash(n)}{out.suffix}"))
    print("built", n)
PY
