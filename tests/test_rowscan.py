"""A thread per row keeping a running sum along it (profilers/analysis/prefix.py's row_scan) becomes a warp per row
that scans 32 elements a step with shuffles (optimizer/restructure/rowscan.py): recognised in the blind rounds'
spellings and ours (inclusive, exclusive through row pointers, both stored, a template), compiled with nvcc and run
in the CPU emulator against the kernel as written at row lengths that are not multiples of 32; what reads the running
sum otherwise is not a scan."""
from __future__ import annotations

import os
import shutil
import sys

import numpy as np
import pytest

from compile_batch import compile_each
from emu_run import Batch
from spec_emu import host_blanked

from kernelpro.optimizer.restructure import api
from kernelpro.profilers.analysis.prefix import RowScan, row_scan
from kernelpro.profilers.compile import CompileOptions
from kernelpro.profilers.source import parse_source

TESTS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(TESTS), "benchmarks"))
import first_step  # noqa: E402

GXX = shutil.which("g++")
# file -> (the kernel's name in the emulator, sizes, rows x columns of each buffer)
CASES = {
    "rowscan/exclusive_ptr.cu": (None, {"rows": 37, "cols": 101}),
    "rowscan/int_column_major.cu": (None, {"rows": 45, "cols": 70}),
    "probe_e/sc_row_inclusive.cu": ("cumsum_rows_kernel<float>", {"rows": 33, "cols": 77}),
    "probe_d/scan_row_cumsum.cu": (None, None),
}


def _ev(e, env):
    return int(eval(str(e).replace("/", "//"), {"cdiv": lambda a, b: -(-a // b)}, dict(env)))


def test_the_recogniser_reads_the_sum_its_stores_and_their_side_of_the_update():
    src = parse_source(open(os.path.join(TESTS, "rowscan/exclusive_ptr.cu")).read())
    rs = row_scan(src, src.kernels[0])
    assert isinstance(rs, RowScan) and (rs.acc, rs.acc_type, rs.var, rs.start, rs.end) == ("run", "float", "c", "0", "cols")
    assert [src.node_text(s) for s in rs.before] == ["const float v = x[c] * s;"]
    assert [(src.node_text(s), after) for s, after in rs.readers] == [("y[c] = run;", False)]
    bad = open(os.path.join(TESTS, "rowscan/n_reads_sum.cu")).read()
    assert not isinstance(row_scan(parse_source(bad), parse_source(bad).kernels[0]), RowScan)
    good = bad.replace("acc += in[r * cols + c] * (acc > 1.f ? 0.5f : 1.f);", "acc += in[r * cols + c];")
    assert isinstance(row_scan(parse_source(good), parse_source(good).kernels[0]), RowScan)
    # the sum read other than in a store, memory written before the update
    for old, new, why in (("out[r * cols + c] = acc;", "float t = acc * 2.f; out[r * cols + c] = t;",
                           "reads the running sum"),
                          ("acc += in[r * cols + c];", "out[r] = 0.f; acc += in[r * cols + c];",
                           "written at the same place by every iteration")):
        text = good.replace(old, new)
        got = row_scan(parse_source(text), parse_source(text).kernels[0])
        assert not isinstance(got, RowScan) and why in got.reason and not got.not_this_shape, got


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_warp_scan_computes_what_the_thread_per_row_kernel_computes(name, tmp_path):
    emu_name, sizes = CASES[name]
    path = os.path.join(TESTS, name)
    text = open(path).read()
    head = first_step.read_header(text)
    if sizes:
        head["sizes"].update(sizes)
    ctx = first_step.context(path, text, head)
    plans, why = api.plans(text, ctx)
    plan = next((p for p in plans if p.name == "row-scan"), None)
    assert plan is not None, why
    cands = [plan.build(kn) for kn in plan.space]
    k = parse_source(text).kernel(ctx.kernel)
    problems = compile_each(path, [(k.name, c.source, ()) for c in cands], CompileOptions(arch="sm_90"))
    assert problems == [None] * len(cands), problems
    env = head["sizes"]
    runs = [(host_blanked(text), ctx.launch)] + [(host_blanked(c.source), c.launch) for c in cands]
    batch = Batch([(s, emu_name or k.name) for s, _ in runs], str(tmp_path))
    n = env["rows"] * env["cols"] if "rows" in env else None
    outs = []
    for i, (_, launch) in enumerate(runs):
        rng = np.random.default_rng(4)
        args = []
        for p in k.params:
            if p.is_pointer:
                count = n if n is not None else _ev("R * C", env)
                if p.base_type == "int":
                    args.append(rng.integers(0, 100, count).astype(np.int32))
                else:
                    args.append(rng.standard_normal(count).astype(np.float32))
            else:
                args.append(env[p.name])
        got = batch.run(i, args, [_ev(g, env) for g in launch["grid"]], [_ev(b, env) for b in launch["block"]])
        outs.append([g for g, p in zip(got, k.params) if p.is_pointer])
    for c, o in zip(cands, outs[1:]):
        for a, b, p in zip(outs[0], o, [p for p in k.params if p.is_pointer]):
            assert np.allclose(a, b, rtol=1e-4, atol=1e-3), f"{c.description}: {p.name} differs"


ROW = """__global__ void k(const float* in, float* out, float* totals, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    TYPE run = 0;
    for (int c = 0; c < cols; ++c) {
        BODY
    }
    AFTER
}"""


@pytest.mark.parametrize("body, after, type_, why", [
    # the row's other code would run on each of the warp's 32 lanes: a normalising pass, an update of memory
    ("run += in[r * cols + c]; out[r * cols + c] = run;", "for (int c = 0; c < cols; ++c) out[r * cols + c] /= run;",
     "float", "runs another loop"),
    ("run += in[r * cols + c]; out[r * cols + c] = run;", "totals[r] += run;", "float", "updates memory"),
    ("run += in[r * cols + c]; out[r * cols + c] = run;", "totals[r] = in[r] * run;", "float", "read from memory"),
    # lanes that skip a step would leave the warp's shuffles
    ("if (in[r * cols + c] == 0.f) continue; run += in[r * cols + c]; out[r * cols + c] = run;", "", "float",
     "continue"),
    # an integer total truncated each step is not the sum of truncated elements
    ("run += in[r * cols + c] - 2.5f; out[r * cols + c] = run;", "", "int", "adds a floating-point value"),
    # the added value reads what the loop stored (read after the store in the thread; before it in the scan)
    ("out[r * cols + c] = run; float v = out[r * cols + c] * 0.5f + in[r * cols + c]; run += v;", "", "float",
     "which the loop stores to"),
])
def test_a_running_sum_whose_row_a_warp_would_change_is_refused_with_the_reason(body, after, type_, why):
    """A second reading (2026-12-06) found each of these made a wrong warp-per-row candidate; each is refused."""
    text = ROW.replace("BODY", body).replace("AFTER", after).replace("TYPE", type_)
    got = row_scan(parse_source(text), parse_source(text).kernels[0])
    assert not isinstance(got, RowScan) and why in got.reason, got
    ok = ROW.replace("BODY", "run += in[r * cols + c]; out[r * cols + c] = run;").replace(
        "AFTER", "totals[r] = run;").replace("TYPE", "float")
    assert isinstance(row_scan(parse_source(ok), parse_source(ok).kernels[0]), RowScan)
