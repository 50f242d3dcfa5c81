"""A candidate's launch as the spec takes it (Candidate.full_launch): a new grid and block for a source without
dynamic shared memory run with none, not with the spec's (the 3-D stencil's candidates had been timed with the
hand-written kernel's 78 KB a block); a source that declares some keeps the spec's, a launch that says its own too."""
from __future__ import annotations

from kernelpro.optimizer.evaluator import GpuEvaluator
from kernelpro.optimizer.model import Candidate
from kernelpro.profilers.runtime.spec import loads_spec
from kernelpro.profilers.source import parse_source

PLAIN = "__global__ void k(float* out, const float* inp, int n) {\n  int i = threadIdx.x;\n  if (i < n) out[i] = inp[i];\n}\n"
DYNAMIC = PLAIN.replace("int i = threadIdx.x;", "extern __shared__ float s[];\n  int i = threadIdx.x;")
SPEC = """kernel = "k"
[sizes]
small = { n = 1000 }
[[args]]
name = "out"
dtype = "float32"
shape = ["n"]
output = true
[[args]]
name = "inp"
dtype = "float32"
shape = ["n"]
[[args]]
name = "n"
value = "n"
[launch]
grid = ["cdiv(n, 256)"]
block = [256]
shared_bytes = "78336"
"""


def _shared(tmp_path, source: str, launch: dict) -> str:
    f = tmp_path / "k.cu"
    f.write_text(DYNAMIC)
    spec = loads_spec(SPEC, tmp_path / "k.kernelpro.toml", parse_source(DYNAMIC, str(f)))
    ev = GpuEvaluator(f, "k", spec, pool=object())
    (step,) = ev.spec_for(Candidate(source=source, launch=launch, kind="structural")).launches
    return str(step.shared_bytes)


def test_a_new_launch_without_dynamic_shared_memory_runs_with_none(tmp_path):
    launch = {"grid": ["cdiv(n, 128)"], "block": [128]}
    assert _shared(tmp_path, PLAIN, launch) == "0"
    assert _shared(tmp_path, DYNAMIC, launch) == "78336"  # the kernel still declares it: the spec's stays
    assert _shared(tmp_path, PLAIN, {**launch, "shared_bytes": "4 * 128"}) == "4 * 128"
    assert Candidate(source=PLAIN, launch={"block": [128]}).full_launch == {"block": [128]}  # no grid: as given
    # `extern "C"` is no dynamic shared memory; a project header might declare some in a macro: kept
    c = PLAIN.replace("__global__", 'extern "C" __global__').replace("int i = threadIdx.x;",
                                                                       "__shared__ float t[128];\n  int i = threadIdx.x;")
    assert _shared(tmp_path, c, launch) == "0"
    assert _shared(tmp_path, '#include "smem.cuh"\n' + PLAIN, launch) == "78336"


def test_the_branch_spec_keeps_the_reference_kernel_s_own_launch(tmp_path):
    """A reference kernel that took [launch]'s grid, block and shared memory keeps them when the branch's spec
    writes the candidate's (0 bytes of dynamic shared memory among them) into [launch]: said in [reference]."""
    from kernelpro.optimizer import spec_edit

    spec = SPEC + '[reference]\nkernel = "k"\n'
    cand = Candidate(source=PLAIN, launch={"grid": ["cdiv(n, 128)"], "block": [128]}, kind="structural")
    text = spec_edit.render_spec(spec, cand.full_launch)
    f = tmp_path / "k.cu"
    f.write_text(DYNAMIC)
    again = loads_spec(text, tmp_path / "k.kernelpro.toml", parse_source(DYNAMIC, str(f)))
    (step,) = again.launches
    assert str(step.shared_bytes) == "0" and [str(b) for b in step.block] == ["128"]
    ref = again.reference["step"]
    assert str(ref.shared_bytes) == "78336" and [str(b) for b in ref.block] == ["256"], ref
    assert spec_edit.render_spec(spec, {"block": [256]}).count("[reference]") == 1  # (nothing changed: as it was)
