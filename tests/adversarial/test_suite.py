"""The cheat suite (tests/adversarial/cases.py).

In CI: every kernel compiles with the real nvcc, every spec validates against its honest kernel and
against each cheat's signature, and the worker job is built from each cheat's cubin (its parameter
list checked). On a GPU (`gpu` marker): every cheat is rejected, or shows no speedup, through the path
`kernelpro bench` takes (measure.measure_spec), and every honest twin passes; test_optimize_suite.py
feeds the cheats to `optimize` as a model's answers.
"""
from __future__ import annotations

import pytest

from cases import CASES, HERE, HONEST, by_name
from kernelpro.profilers.compile import CompileOptions, compile_cuda
from kernelpro.profilers.runtime.measure import build_job
from kernelpro.profilers.runtime.spec import load_spec
from kernelpro.profilers.source import parse_source

ISSUE_CHEATS = {  # issue 10's list of cheats -> the cases that play them
    "memoization on values": "memo_values", "memoization on addresses": "memo_address",
    "device state across launches": "state_counter", "static state": "static_cache",
    "work on a side stream": "side_stream", "partial writes": "partial_writes", "skipped tails": "skipped_tail",
    "constant outputs that match a weak tolerance": "constant_weak_tol", "reduced precision": "reduced_precision",
    "input mutation": "input_mutation", "reading the reference's output buffer": "oob_read_neighbour",
    "stale output buffers": "stale_output", "out-of-bounds reads that happen to pass": "oob_read_passes",
    "a result faster than the ceiling": "faster_than_ceiling",
}


def test_the_suite_covers_every_cheat_of_the_issue():
    names = {c.name for c in CASES}
    assert set(ISSUE_CHEATS.values()) <= names
    assert len(CASES) >= 15 and len(names) == len(CASES)
    for c in CASES:
        assert c.cheat.is_file() and c.source.is_file() and c.spec.is_file(), c.name
        assert c.expect in ("rejected", "no-speedup") and (c.expect == "no-speedup" or c.reasons), c.name
        assert "CHEAT" in c.cheat.read_text().splitlines()[0], c.name
    assert {p.stem.removeprefix("cheat_") for p in HERE.glob("cheat_*.cu")} == names


@pytest.mark.slow
@pytest.mark.parametrize("honest", HONEST)
def test_honest_kernels_compile_and_their_specs_validate(honest):
    spec = load_spec(HERE / f"{honest}.kernelpro.toml")
    art = compile_cuda(HERE / f"{honest}.cu", CompileOptions(), use_cache=False)
    assert art.ok, [d.message for d in art.diagnostics]
    job = build_job(spec, art, seed=1)
    assert job["sizes"][-1]["check_only"] and job["distributions"][0] == "spec"
    assert all("param_bytes" in st for size in job["sizes"] for st in size["steps"])


@pytest.mark.slow
@pytest.mark.parametrize("name", [c.name for c in CASES])
def test_cheats_compile_and_fit_their_spec(name):
    c = by_name(name)
    spec = load_spec(c.spec)
    text = c.cheat.read_text()
    spec.bind(parse_source(text, str(c.cheat)))  # the cheat takes the honest kernel's arguments
    art = compile_cuda(c.source, CompileOptions(), text=text, use_cache=False)
    if name == "side_stream":  # device-side launches need relocatable device code, which the runner never builds
        assert not art.ok and any("separate compilation" in d.message for d in art.diagnostics)
        rdc = compile_cuda(c.source, CompileOptions(extra_flags=("-rdc=true",)), text=text, use_cache=False)
        assert rdc.ok, [d.message for d in rdc.diagnostics]
        return
    assert art.ok, [d.message for d in art.diagnostics]
    job = build_job(spec, art, seed=1)  # the cubin's parameter list agrees with the spec's arguments
    assert [a.get("offset") for a in job["sizes"][0]["steps"][0]["args"]] == sorted(
        a.get("offset") for a in job["sizes"][0]["steps"][0]["args"])
