"""A thread-per-element gather through quotients of its index (optimizer/restructure/gather.py):
the spellings people write (five), packed, run in the CPU emulator against the embedding family's
reference (rows whose width is and is not a multiple of the pack), and what it must refuse."""
from __future__ import annotations

import os
import shutil

import pytest
from compile_batch import candidates_compile
from emu_run import Batch
from suite_emu import SUITE, check, load_spec, refusals, run

from kernelpro.optimizer.builtin import BuiltinProposer
from kernelpro.optimizer.restructure import api
from kernelpro.optimizer.transforms import TransformInput

LAUNCH = {"grid": ["cdiv(B * T * C, 256)"], "block": [256]}
HEAD = "#include <cuda_bf16.h>\n"
SIG = "(floatX* out, const int* tokens, const floatX* wte, const floatX* wpe, int B, int T, int C)"

SPELLINGS = {
    # pointer offsets, a local bound, typedef'd bf16: the suite's own naive kernel of this style
    "pointers": open(os.path.join(SUITE, "encoder", "naive_elem.cu")).read(),
    # subscripts, an early return, a `using` alias, the position from the token index
    "subscripts": HEAD + "using floatX = __nv_bfloat16;\n__global__ void encoder_forward" + SIG + """ {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= B * T * C) return;
  const int token = i / C;
  const int ch = i % C;
  const int pos = token % T;
  out[i] = __float2bfloat16(__bfloat162float(wte[tokens[token] * C + ch]) + __bfloat162float(wpe[pos * C + ch]));
}
""",
    # the channel as the index minus the row's start, `auto` locals
    "subtracted": HEAD + "typedef __nv_bfloat16 floatX;\n__global__ void encoder_forward" + SIG + """ {
  int gi = blockIdx.x * blockDim.x + threadIdx.x;
  if (gi < B * T * C) {
    auto bt = gi / C;
    auto ch = gi - bt * C;
    out[gi] = (floatX)((float)wte[tokens[bt] * C + ch] + (float)wpe[(bt % T) * C + ch]);
  }
}
""",
    # the position and batch from one quotient, wpe added first
    "batch_pos": HEAD + "typedef __nv_bfloat16 floatX;\n__global__ void encoder_forward" + SIG + """ {
  int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n < B * T * C) {
    int tok = n / C, b = tok / T, t = tok - b * T, c = n % C;
    float sum = (float)wpe[t * C + c];
    sum += (float)wte[tokens[b * T + t] * C + c];
    out[(b * T + t) * C + c] = (floatX)sum;
  }
}
""",
    # unsigned index, the sum through float locals
    "unsigned": HEAD + "typedef __nv_bfloat16 floatX;\n__global__ void encoder_forward" + SIG + """ {
  unsigned e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < (unsigned)(B * T * C)) {
    unsigned row = e / C, col = e % C;
    float a = __bfloat162float(wte[tokens[row] * C + col]);
    float p = __bfloat162float(wpe[(row % T) * C + col]);
    out[row * C + col] = __float2bfloat16(a + p);
  }
}
""",
}


def _proposer(text: str):
    spec = load_spec("encoder", "naive")
    p = BuiltinProposer(spec.kernel, dict(LAUNCH), [], path="/tmp/kp_gather_test.cu", spec=spec)
    inp = TransformInput(source=text, kernel=spec.kernel, launch=dict(LAUNCH), base_launch=None)
    return spec, p, inp


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ for the emulator")
def test_each_spelling_is_packed_and_computes_the_reference(tmp_path):
    runs = []
    for name, text in SPELLINGS.items():
        spec, p, inp = _proposer(text)
        cands = [c for c, _ in p.structural_candidates(inp) if c.origin == "builtin:gather"]
        assert cands, f"{name}: no gather plan: {p.plans_refused}"
        plan = p.tuner.states[cands[0].key()].plan
        assert dict(cands[0].knobs) == {"block": 256, "vec": 8} and "packed accesses of out, wpe, wte" in \
            cands[0].description, name
        runs.append((f"{name} as written", text, LAUNCH))
        built = [(knobs, plan.build(knobs)) for knobs in plan.space]
        # what p.compile_error says of each, in few nvcc calls
        for (knobs, c), problem in zip(built, candidates_compile(p, [c for _, c in built])):
            assert problem is None, (name, knobs, problem)
            runs.append((f"{name} {knobs}", c.source, {**LAUNCH, **c.launch}))
    spec = load_spec("encoder", "naive")
    batch = Batch([(src, spec.kernel) for _, src, _ in runs], str(tmp_path))
    # 40 channels: whole packs of 8 (and of 4); 36: packs that cross a row take the element path
    for env in ({"B": 2, "T": 3, "C": 40, "V": 50}, {"B": 2, "T": 3, "C": 36, "V": 50}):
        for i, (what, src, launch) in enumerate(runs):
            got, views = run("encoder", spec, src, launch, env, str(tmp_path), batch=batch, index=i)
            check("encoder", spec, got, views, env, f"{what} at {env}")


def _why(text: str) -> str:
    _, p, inp = _proposer(text)
    return refusals(p, inp, "builtin:gather")


def test_what_it_must_not_pack_is_said():
    base = SPELLINGS["subscripts"]
    # a write that is not at consecutive elements
    assert "a write that is not at consecutive elements" in _why(base.replace("out[i] =", "out[token * C] ="))
    # two elements apart: not a pack of consecutive ones
    assert "moves 2 elements" in _why(base.replace("wpe[pos * C + ch]", "wpe[2 * i]"))
    # an element-wise kernel is the packed element-wise plan's, not this one's
    ew = HEAD + "__global__ void encoder_forward(float* out, const float* wte, int n) {\n" \
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) out[i] = 2.0f * wte[i];\n}\n"
    spec, p, inp = _proposer(ew)
    ctx = api.Context(kernel=spec.kernel, path=p.path, launch=dict(LAUNCH), base_launch=None, size_env={},
                      arch="sm_90", answers_present=(), flags=(), scalar_params={})
    assert api.gather_plans(ew, ctx) == []


def test_reads_that_may_not_run_or_come_after_a_write_are_not_packed():
    base = SPELLINGS["subscripts"]
    # a read under a condition (padding tokens) stays in the element's code: it may not run
    cond = base.replace("__bfloat162float(wte[tokens[token] * C + ch])",
                        "(tokens[token] >= 0 ? __bfloat162float(wte[tokens[token] * C + ch]) : 0.0f)")
    spec, p, inp = _proposer(cond)
    (c,) = [c for c, _ in p.structural_candidates(inp) if c.origin == "builtin:gather"]
    assert "packed accesses of out, wpe (" in c.description and p.compile_error(c) is None
    # written, then read again in the same element: the packs are read before the element's code
    twice = base.replace("out[i] = __float2bfloat16(", "out[i] = __float2bfloat16(1.0f); out[i] = __float2bfloat16(")
    assert "out is written and read" in _why(twice)
    again = base.replace("  out[i] = ", "  wpe[i] = wte[i];\n  out[i] = ").replace("const floatX* wpe", "floatX* wpe")
    assert "wpe is written and read" in _why(again)
    # an index counted in another type's units through a pointer cast
    cast = base.replace("__bfloat162float(wpe[pos * C + ch])", "(float)((const double*)wpe)[pos * C + ch]")
    assert "a pointer cast" in _why(cast)
    # a cast of a value (not of a pointer) changes no index: still packed
    value = base.replace("__bfloat162float(wpe[pos * C + ch])", "static_cast<float>(wpe[pos * C + ch])")
    spec, p, inp = _proposer(value)
    assert [c for c, _ in p.structural_candidates(inp) if c.origin == "builtin:gather"]


def test_an_opaque_division_keeps_its_operands_bracketed():
    """`(C + 7) / 8` as an atom must not read `(C + 7 / 8)` where the gather pastes it as C."""
    from kernelpro.profilers.analysis.patterns import accesses_in, row_kernel
    from kernelpro.profilers.source import parse_source
    text = ("__global__ void k(float* out, const float* w, int C, int T) {\n"
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  int ld = (C + 7) / 8 * 8;\n"
            "  if (i < C * T) out[i] = w[(i / C) * ld + i % C] + w[(C / (2 * T)) * 4 + i % C];\n}\n")
    src = parse_source(text, "k.cu")
    atoms = {a for acc in accesses_in(row_kernel(src, src.kernel("k"))) for m in acc.index for a in m}
    assert "((C + 7) / 8)" in atoms and "(C / (2*T))" in atoms
