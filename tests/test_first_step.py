"""Issue 27's measure on the probe corpus (tests/probe27/: public-style naive kernels, each with its launch,
sizes and the plans that are a right first step): benchmarks/first_step.py runs the structural plans as
`optimize --propose-only` does (no GPU, no nvcc) and the first expansion must hold a right first step for at
least the share reached when the corpus was written and its misses fixed (48 of 62)."""
from __future__ import annotations

import glob
import os
import sys

TESTS = os.path.dirname(os.path.abspath(__file__))
PROBE = os.path.join(TESTS, "probe27")
sys.path.insert(0, os.path.join(os.path.dirname(TESTS), "benchmarks"))
import first_step  # noqa: E402

REACHED = 48 / 62


def test_every_probe_kernel_has_a_header_the_script_reads():
    files = sorted(glob.glob(os.path.join(PROBE, "*.cu")))
    assert len(files) >= 40
    for f in files:
        head = first_step.read_header(open(f).read())
        assert head["expect"] and head["launch"]["grid"] and head["launch"]["block"], f


def test_the_first_expansion_holds_the_right_first_step(capsys):
    assert first_step.main([PROBE, "--json"]) == 0  # no kernel crashes the plans
    import json
    got = json.loads(capsys.readouterr().out)
    misses = [f"{r['file']}: offered {r['offered']}; {r['not_applied'][:2]}" for r in got["rows"] if not r["hit"]]
    assert got["scored"] >= 40
    assert got["rate"] >= REACHED - 1e-9, f"{got['hits']}/{got['scored']}:\n" + "\n".join(misses)
