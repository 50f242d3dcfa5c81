"""A template kernel the file instantiates more than once (cuda-samples' `MatrixMulCUDA<16>` and `<32>`): the
spec says which instantiation runs (`template = ["32"]`), the runtime launches that one, the plans read the
template's values as that instantiation gives them, and the spec inference writes the key. Without it, a
clear message names the instantiations (before: "launching a template kernel is not supported")."""
from __future__ import annotations

import os
import shutil
import textwrap

import numpy as np
import pytest

from compile_batch import compile_each
from emu_run import Batch

from kernelpro.optimizer.restructure import api
from kernelpro.profilers.compile import CompileOptions, compile_cuda
from kernelpro.profilers.runtime.measure import EvalError, _mangled, same_template_args
from kernelpro.profilers.runtime.spec import SpecError, load_spec
from kernelpro.profilers.source import parse_source

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.join(HERE, "matmul_forms", "samples_matrixmul.cu")
GXX = shutil.which("g++")

SPEC = """kernel = "MatrixMulCUDA"
{template}
[sizes]
small = {{ wA = 64, wB = 96, hA = 32 }}

[[args]]
name = "C"
dtype = "float32"
shape = ["hA", "wB"]
output = true

[[args]]
name = "A"
dtype = "float32"
shape = ["hA", "wA"]

[[args]]
name = "B"
dtype = "float32"
shape = ["wA", "wB"]

[[args]]
name = "wA"
value = "wA"

[[args]]
name = "wB"
value = "wB"

[launch]
grid = ["wB / 32", "hA / 32"]
block = [32, 32]
"""


def _spec(tmp_path, template: str):
    shutil.copy(SAMPLE, tmp_path / "mm.cu")
    (tmp_path / "mm.kernelpro.toml").write_text(SPEC.format(template=template))
    return load_spec(tmp_path / "mm.kernelpro.toml")


def test_the_spec_names_the_instantiation_and_says_what_is_wrong_with_a_bad_one(tmp_path):
    assert _spec(tmp_path, "").template == ()
    assert _spec(tmp_path, 'template = ["32"]').template == ("32",)
    assert _spec(tmp_path, "template = [32]").template == ("32",)
    for bad, why in (('template = "32"', "must be a list"), ('template = ["32", "float"]', "takes 1 template")):
        with pytest.raises(SpecError, match=why):
            _spec(tmp_path, bad)
    plain = tmp_path / "p"
    plain.mkdir()
    (plain / "k.cu").write_text("__global__ void k(float* x, int n) { int i = threadIdx.x; if (i < n) x[i] = 0; }\n")
    (plain / "k.kernelpro.toml").write_text('kernel = "k"\ntemplate = ["1"]\n[sizes]\ns = { n = 4 }\n[[args]]\n'
                                            'name = "x"\ndtype = "float32"\nshape = ["n"]\noutput = true\n[[args]]\n'
                                            'name = "n"\nvalue = "n"\n[launch]\ngrid = [1]\nblock = [32]\n')
    with pytest.raises(SpecError, match="not a template kernel"):
        load_spec(plain / "k.kernelpro.toml")


def test_the_runtime_launches_the_named_instantiation_and_asks_for_one_where_there_are_several():
    art = compile_cuda(SAMPLE, CompileOptions(arch="sm_90"))
    assert art.ok
    labels = {b.mangled: b.label for b in art.builds("MatrixMulCUDA")}
    assert sorted(labels.values()) == ["MatrixMulCUDA<16>", "MatrixMulCUDA<32>"]
    assert labels[_mangled(art, "MatrixMulCUDA", ("32",))] == "MatrixMulCUDA<32>"
    assert labels[_mangled(art, "MatrixMulCUDA", ("16",))] == "MatrixMulCUDA<16>"
    with pytest.raises(EvalError, match=r"template = \[\.\.\.\] in the spec"):
        _mangled(art, "MatrixMulCUDA")
    with pytest.raises(EvalError, match="names 0 of the instantiations"):
        _mangled(art, "MatrixMulCUDA", ("64",))
    assert same_template_args(("256",), ("256u", "true")) and same_template_args(("float",), ("float",))
    assert not same_template_args(("float", "128"), ("float", "256"))


def _ctx(template):
    launch = {"grid": ["wB / 32", "hA / 32"], "block": [32, 32]}
    return api.Context(kernel="MatrixMulCUDA", path=SAMPLE, launch=dict(launch), base_launch=dict(launch),
                       size_env={"s": {"wA": 64, "wB": 96, "hA": 32}}, scalar_params={"wA": "wA", "wB": "wB"},
                       template=template)


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
def test_the_plans_read_the_tile_of_the_instantiation_the_spec_runs(tmp_path):
    """Two instantiations give BLOCK_SIZE two values: unread without the spec's choice, with it the staged
    product is read back and tiled; the tile candidate keeps the template (the file's other instantiation still
    compiles) and computes what `MatrixMulCUDA<32>` computes."""
    text = open(SAMPLE).read()
    plans, why = api.plans(text, _ctx(()))
    assert "matmul-tiles" not in [p.name for p in plans]
    assert any("matmul" in w for w in why), why
    plans, why = api.plans(text, _ctx(("32",)))
    plan = next((p for p in plans if p.name == "matmul-tiles"), None)
    assert plan is not None, why
    c = plan.build(plan.space[0])
    assert "template <int BLOCK_SIZE>" in c.source
    (problem,) = compile_each(SAMPLE, [("MatrixMulCUDA", c.source, ())], CompileOptions(arch="sm_90"))
    assert problem is None, "\n".join(problem)
    batch = Batch([(text, "MatrixMulCUDA<32>"), (c.source, "MatrixMulCUDA<32>")], str(tmp_path))
    hA, wA, wB = 32, 64, 96
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((hA, wA)).astype(np.float32), rng.standard_normal((wA, wB)).astype(np.float32)
    k = parse_source(text).kernel("MatrixMulCUDA")
    outs = []
    for i, launch in enumerate((_ctx(()).launch, c.launch)):
        env = {"wA": wA, "wB": wB, "hA": hA}
        grid = [int(eval(str(g).replace("/", "//"), {"cdiv": lambda x, y: -(-x // y)}, env)) for g in launch["grid"]]
        args = {"C": np.zeros(hA * wB, np.float32), "A": a.reshape(-1), "B": b.reshape(-1), "wA": wA, "wB": wB}
        outs.append(batch.run(i, [args[p.name] for p in k.params], grid, launch["block"])[0])
    assert np.allclose(outs[0], (a @ b).reshape(-1), rtol=1e-4, atol=1e-4)
    assert np.allclose(outs[1], outs[0], rtol=1e-4, atol=1e-4)


def test_the_inference_writes_the_instantiation_of_the_launch_it_read(tmp_path):
    from kernelpro.profilers.runtime.infer import infer_spec, write_spec

    host = textwrap.dedent("""
        void run(float* C, float* A, float* B, int wA, int wB, int hA, int bs) {
          if (bs == 16) MatrixMulCUDA<16><<<dim3(wB / 16, hA / 16), dim3(16, 16)>>>(C, A, B, wA, wB);
          else MatrixMulCUDA<32><<<dim3(wB / 32, hA / 32), dim3(32, 32)>>>(C, A, B, wA, wB);
        }
    """)
    cu = tmp_path / "mm.cu"
    cu.write_text(open(SAMPLE).read().split("template __global__")[0] + host)
    plan = infer_spec(cu, "MatrixMulCUDA", spec_path=tmp_path / "mm.kernelpro.toml")
    write_spec(plan)
    spec = load_spec(tmp_path / "mm.kernelpro.toml")
    assert spec.template == (plan.instantiation.split("<")[1].rstrip(">"),)
    assert list(spec.block(spec.launches[0], list(spec.sizes)[0])) == [int(spec.template[0])] * 2


def test_a_constant_of_host_code_or_of_the_file_is_not_a_kernel_parameter_of_that_name():
    """`const int F = 300;` in `main` is not the kernel's parameter F (a column split once wrote the row stride
    as 300), and a kernel parameter N shadows the file's `const int N = 1024;`."""
    text = ("const int N = 1024;\n__global__ void k(float* a, int N, int F) { a[N + F] = 0; }\n"
            "__global__ void j(float* a) { a[N] = 0; }\nint main() { const int F = 300; return F; }\n")
    src = parse_source(text)
    got = {}
    for k in src.kernels:
        for n in (m for m in _walk(k.body) if m.type == "identifier" and src.node_text(m) in ("N", "F")):
            got[(k.name, src.node_text(n))] = src.eval_int(n)
    assert got == {("k", "N"): None, ("k", "F"): None, ("j", "N"): 1024}
    assert "F" not in src.constants and src.constants["N"] == 1024


def _walk(n):
    yield n
    for c in n.children:
        yield from _walk(c)


def test_a_define_of_an_integer_expression_is_a_constant():
    """A parenthesised `#define` of an integer expression of earlier constants is a constant, with C's division; an
    unparenthesised one (ECE408's `#define Mask_radius Mask_width / 2`) is not (`2 * R` pastes as `2 * W / 2`: the
    kernel's text is expanded instead), nor a float, a call or an unknown name."""
    src = parse_source("#define W 5\n#define R W / 2\n#define M ((1 << 8) - 1)\n#define NEG (-7 / 2)\n#define F 2.5f\n"
                       "#define G foo(3)\n#define H (Q + 1)\n#define N (R * 2 + 1)\n__global__ void k() {}\n")
    assert src.constants == {"W": 5, "M": 255, "NEG": -3}  # (R unparenthesised: pasted in the kernel's text instead)
