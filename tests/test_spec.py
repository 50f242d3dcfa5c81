"""Launch specs: parsing, validation errors with their lines, init round trip, the safe evaluator."""
from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

from kernelpro.profilers.runtime.expr import ExprError, evaluate, evaluate_int, parse_expr
from kernelpro.profilers.runtime.spec import (
    NO_REFERENCE, SpecError, ctype_dtype, find_spec, init_spec, load_reference, load_spec, loads_spec,
)
from kernelpro.profilers.source import parse_source

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

CU = """\
#include <cuda_fp16.h>
#define BLOCK 256
__global__ void vecadd(float* out, const float* a, const float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}
__global__ void vecadd_ref(float* out, const float* a, const float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}
__global__ void partial_sums(const float* in, float* partial, int n) {}
__global__ void finish(const float* partial, float* out, int m) {}
__global__ void vec4(float4* out, const float4* in, int n) {}
__global__ void hscale(__half* y, const __half* x, float alpha, unsigned n) {}
void run(float* out, const float* a, const float* b, int n) {
  vecadd<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(out, a, b, n);
}
"""

GOOD = """\
kernel = "vecadd"
[sizes]
small = { n = 1024 }
medium = { n = 65536 }
large = { n = 1048576 }
[[args]]
name = "out"
dtype = "float32"
shape = ["n"]
output = true
[[args]]
name = "a"
dtype = "float32"
shape = ["n"]
fill = "randn"
[[args]]
name = "b"
dtype = "float32"
shape = ["n"]
fill = "rand"
[[args]]
name = "n"
value = "n"
[launch]
grid = ["cdiv(n, 256)"]
block = [256]
shared_bytes = 0
[reference]
python = "vecadd_ref.py:reference"
[tolerance]
rtol = 1e-5
atol = 1e-7
[cost]
bytes = "12 * n"
flops = "n"
"""

REF_PY = """\
import numpy as np

def reference(inputs, sizes):
    return {"out": inputs["a"] + inputs["b"]}

def broken(inputs, sizes):
    x = 1
    return {"out": inputs["nope"]}

def wrong_key(inputs, sizes):
    return {"c": inputs["a"]}
"""

MULTI = """\
kernel = "partial_sums"
[sizes]
small = { n = 4096 }
large = { n = 1048576 }
[[args]]
name = "in"
dtype = "float32"
shape = ["n"]
[[args]]
name = "out"
dtype = "float32"
shape = [1]
output = true
[[args]]
name = "n"
value = "n"
[[scratch]]
name = "partial"
dtype = "float32"
shape = ["cdiv(n, 256)"]
[[launches]]
kernel = "partial_sums"
grid = ["cdiv(n, 256)"]
block = [256]
args = ["in", "partial", "n"]
[[launches]]
kernel = "finish"
grid = [1]
block = [256]
shared_bytes = "256 * 4"
args = ["partial", "out", "cdiv(n, 256)"]
"""


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "k.cu").write_text(CU)
    (tmp_path / "vecadd_ref.py").write_text(REF_PY)
    return tmp_path


def write(tree: Path, text: str, name: str = "k.kernelpro.toml") -> Path:
    p = tree / name
    p.write_text(textwrap.dedent(text))
    return p


def marked_line(text: str) -> int:
    lines = [i for i, l in enumerate(text.split("\n"), 1) if "# HERE" in l]
    assert len(lines) == 1, "test spec needs exactly one # HERE"
    return lines[0]


def expect_error(tree: Path, text: str, *fragments: str) -> SpecError:
    p = write(tree, text)
    with pytest.raises(SpecError) as ei:
        load_spec(p)
    e = ei.value
    assert e.file == str(p)
    assert e.line == marked_line(text), f"line {e.line} for: {e}"
    for f in fragments:
        assert f in e.reason, f"{f!r} not in {e.reason!r}"
    assert str(e).startswith(f"{p}:{e.line}: ")
    return e


# --- good specs -------------------------------------------------------------------------

def test_good_spec_with_several_sizes(tree):
    s = load_spec(write(tree, GOOD))
    assert s.kernel == "vecadd" and s.source_path == tree / "k.cu"
    assert list(s.sizes) == ["small", "medium", "large"]
    assert [a.name for a in s.args] == ["out", "a", "b", "n"]
    assert s.args[3].dtype == "int32" and s.args[3].value == "n"
    assert s.outputs[0].name == "out" and [a.name for a in s.inputs] == ["a", "b"]
    assert s.args[2].fill == "rand" and s.args[0].fill is None
    step = s.launches[0]
    assert step.kernel == "vecadd" and step.args == ("out", "a", "b", "n")
    assert step.pointers == (True, True, True, False) and step.dtypes == ("float32",) * 3 + ("int32",)
    assert s.grid(step, "small") == (4,) and s.grid(step, "large") == (4096,)
    assert s.block_threads() == 256
    assert s.shape("a", "medium") == (65536,)
    assert s.eval("cdiv(n, 1000)", "small") == 2
    assert s.bytes_moved("large") == 12 * 1048576 and s.flops("small") == 1024
    assert (s.rtol, s.atol) == (1e-5, 1e-7)
    assert s.reference["python"] == tree / "vecadd_ref.py" and s.reference["function"] == "reference"
    assert not any(NO_REFERENCE in w for w in s.warnings)


def test_default_cost_tolerance_and_fill(tree):
    text = GOOD.split("[reference]")[0].replace('fill = "rand"\n', "")
    s = load_spec(write(tree, text))
    assert s.bytes_moved("small") == 3 * 4 * 1024  # a, b read + out written
    assert s.flops("small") is None
    # float32 default: rtol 1e-4, atol the smallest normal plus rtol x rms(reference), per size
    assert (s.rtol, s.atol) == (1e-4, 1.1754943508222875e-38)
    tol = s.tolerance("small")
    assert (tol.rtol, tol.atol_rms) == (1e-4, 1e-4) and "reduction length 1" in tol.note
    assert s.args[2].fill == "randn"
    assert s.reference == {} and NO_REFERENCE in s.warnings


def test_multi_launch_with_scratch(tree):
    s = load_spec(write(tree, MULTI))
    assert [st.kernel for st in s.launches] == ["partial_sums", "finish"]
    assert s.scratch[0].name == "partial" and s.shape("partial", "large") == (4096,)
    fin = s.launches[1]
    assert fin.args == ("partial", "out", "cdiv(n, 256)")
    assert fin.pointers == (True, True, False) and fin.dtypes == ("float32", "float32", "int32")
    assert s.eval(fin.args[2], "small") == 16 and s.eval(fin.shared_bytes) == 1024
    assert s.arg("n").dtype == "int32"
    # scratch is not counted in the default bytes
    assert s.bytes_moved("small") == 4096 * 4 + 4


def test_with_launch_and_bind(tree):
    s = load_spec(write(tree, GOOD))
    t = s.with_launch({"block": [128], "grid": ["cdiv(n, 128)"]})
    assert t.block_threads() == 128 and t.grid(t.launches[0], "small") == (8,)
    assert s.block_threads() == 256  # the original is untouched
    with pytest.raises(SpecError, match="1024"):
        s.with_launch({"block": [2048]})
    with pytest.raises(SpecError, match="unknown size variable 'm'"):
        s.with_launch({"grid": ["m"]})
    m = load_spec(write(tree, MULTI, "m.kernelpro.toml"), source=parse_source(CU, str(tree / "k.cu")))
    two = m.with_launch({"kernel": "finish", "block": [512]})
    assert two.launches[1].block == ("512",) and two.launches[0].block == ("256",)
    # a candidate whose finish kernel takes doubles no longer matches the float scratch
    cand = parse_source(CU.replace("void finish(const float*", "void finish(const double*"))
    with pytest.raises(SpecError, match="const double"):
        m.bind(cand)


def test_find_spec(tree):
    assert find_spec(tree / "k.cu") is None
    p = write(tree, GOOD)
    assert find_spec(tree / "k.cu") == p
    q = write(tree, GOOD, "k.vecadd.kernelpro.toml")
    assert find_spec(tree / "k.cu", kernel="vecadd") == q
    assert load_spec(q).source_path == tree / "k.cu"  # k.vecadd.cu does not exist -> k.cu


def test_vector_and_half_types(tree):
    text = """\
    kernel = "vec4"
    [sizes]
    s = { n = 1000 }
    [[args]]
    name = "out"
    dtype = "float32"
    shape = ["n", 4]
    output = true
    [[args]]
    name = "in"
    dtype = "float32"
    shape = ["n", 4]
    [[args]]
    name = "n"
    value = "n"
    [launch]
    grid = ["cdiv(n, 128)"]
    block = [128]
    """
    s = load_spec(write(tree, text))
    assert s.shape("out") == (1000, 4) and s.nbytes("out") == 16000
    assert ctype_dtype("float4") == ("float32", 4) and ctype_dtype("const __half") == ("float16", 1)
    assert ctype_dtype("unsigned") == ("uint32", 1) and ctype_dtype("long long") == ("int64", 1)
    assert ctype_dtype("__nv_bfloat16") == ("bfloat16", 1) and ctype_dtype("MyType") is None


# --- validation errors, each at its line ----------------------------------------------

HEAD = 'kernel = "vecadd"\n[sizes]\nsmall = { n = 1024 }\n'
OUT = '[[args]]\nname = "out"\ndtype = "float32"\nshape = ["n"]\noutput = true\n'
A = '[[args]]\nname = "a"\ndtype = "float32"\nshape = ["n"]\n'
B = '[[args]]\nname = "b"\ndtype = "float32"\nshape = ["n"]\n'
N = '[[args]]\nname = "n"\nvalue = "n"\n'
LAUNCH = '[launch]\ngrid = ["cdiv(n, 256)"]\nblock = [256]\n'


def test_toml_syntax_error(tree):
    expect_error(tree, HEAD + OUT + A + B + N + '[launch]\ngrid = [cdiv(n, 256)]  # HERE\nblock = [256]\n',
                 "TOML syntax error")


def test_unknown_top_level_key(tree):
    expect_error(tree, 'colour = "red"  # HERE\n' + HEAD + OUT + A + B + N + LAUNCH, "unknown top-level key 'colour'")


def test_kernel_not_in_file(tree):
    e = expect_error(tree, HEAD.replace('kernel = "vecadd"', 'kernel = "vecad"  # HERE') + OUT + A + B + N + LAUNCH,
                     "'vecad' is not in", "kernels there: vecadd, vecadd_ref, partial_sums")
    assert "hscale" in e.reason


def test_missing_source_file(tree):
    p = write(tree, HEAD + OUT + A + B + N + LAUNCH, "other.kernelpro.toml")
    with pytest.raises(SpecError, match="other.cu not found") as ei:
        load_spec(p)
    assert ei.value.line == 1


def test_too_few_args(tree):
    e = expect_error(tree, HEAD + OUT + A + B.replace("[[args]]", "[[args]]  # HERE") + LAUNCH,
                     "vecadd(out, a, b, n) has 4 parameters", "missing n")
    assert "(out, a, b)" in e.reason


def test_too_many_args(tree):
    extra = '[[args]]  # HERE\nname = "m"\nvalue = "n"\n'
    expect_error(tree, HEAD + OUT + A + B + N + extra + LAUNCH, "[[args]] #5 'm' is one too many")


def test_args_out_of_order(tree):
    b_first = B.replace('name = "b"', 'name = "b"  # HERE')
    expect_error(tree, HEAD + OUT + b_first + A + N + LAUNCH,
                 "args #2 is 'b' but parameter 2 of vecadd(out, a, b, n) is 'a'", "order")


def test_arg_not_a_parameter(tree):
    expect_error(tree, HEAD + OUT + A.replace('name = "a"', 'name = "x"  # HERE') + B + N + LAUNCH,
                 "'x' is not a parameter of vecadd(out, a, b, n)")


def test_pointer_needs_dtype_and_shape(tree):
    no_dtype = '[[args]]  # HERE\nname = "a"\nshape = ["n"]\n'
    expect_error(tree, HEAD + OUT + no_dtype + B + N + LAUNCH, "'a' is a pointer (const float*)", 'dtype = "float32"')
    no_shape = '[[args]]  # HERE\nname = "a"\ndtype = "float32"\n'
    expect_error(tree, HEAD + OUT + no_shape + B + N + LAUNCH, "needs shape")
    with_value = A + 'value = "n"  # HERE\n'
    expect_error(tree, HEAD + OUT + with_value + B + N + LAUNCH, "scalar has value only")


def test_dtype_mismatch(tree):
    expect_error(tree, HEAD + OUT + A.replace('dtype = "float32"', 'dtype = "int32"  # HERE') + B + N + LAUNCH,
                 "'a' is const float* but dtype = 'int32'", "'float32'")


def test_unknown_dtype_and_fill(tree):
    expect_error(tree, HEAD + OUT + A.replace('dtype = "float32"', 'dtype = "f32"  # HERE') + B + N + LAUNCH,
                 "unknown dtype 'f32'", "float32")
    expect_error(tree, HEAD + OUT + A + 'fill = "gauss"  # HERE\n' + B + N + LAUNCH, "unknown fill 'gauss'", "randint")
    expect_error(tree, HEAD + OUT + A + 'fill = "randint:5:5"  # HERE\n' + B + N + LAUNCH, "LO must be below HI")


def test_scalar_needs_value_and_no_shape(tree):
    expect_error(tree, HEAD + OUT + A + B + '[[args]]  # HERE\nname = "n"\n' + LAUNCH,
                 "'n' is a scalar (int) and needs value")
    expect_error(tree, HEAD + OUT + A + B + '[[args]]  # HERE\nname = "n"\nshape = ["n"]\n' + LAUNCH,
                 "'n' is a scalar (int): give value")
    expect_error(tree, HEAD + OUT + A + B + N.replace('value = "n"', 'value = "n / 3"  # HERE') + LAUNCH,
                 "is not an integer")


def test_output_on_const_pointer(tree):
    expect_error(tree, HEAD + OUT + A + 'output = true  # HERE\n' + B + N + LAUNCH,
                 "output = true on a const pointer (const float*)")


def test_unknown_size_variable(tree):
    expect_error(tree, HEAD + OUT + A.replace('shape = ["n"]', 'shape = ["m"]  # HERE') + B + N + LAUNCH,
                 "arg 'a' shape[0]: unknown size variable 'm'", "sizes define: n")


def test_disallowed_constructs(tree):
    for bad, frag in [("__import__('os')", "call to __import__"), ("n.real", "attribute access"),
                      ("abs(n)", "call to abs"), ("n if n else 1", "IfExp"), ("2 ** 100", "exponent 100 not allowed"), ("2 ** 63", "value too large")]:
        launch = f'[launch]\ngrid = ["{bad}"]  # HERE\nblock = [256]\n'
        expect_error(tree, HEAD + OUT + A + B + N + launch, "[launch] grid[0]", frag)


def test_multiline_grid_points_at_key(tree):
    launch = '[launch]\ngrid = [  # HERE\n  "cdiv(n, 256)",\n  "m",\n]\nblock = [256]\n'
    expect_error(tree, HEAD + OUT + A + B + N + launch, "unknown size variable 'm'")


def test_no_sizes(tree):
    text = 'kernel = "vecadd"\n[sizes]  # HERE\n' + OUT + A + B + N + LAUNCH
    expect_error(tree, text, "no sizes")


def test_size_missing_a_variable(tree):
    head = 'kernel = "vecadd"\n[sizes]\nsmall = { n = 1024, m = 4 }\nlarge = { m = 8 }  # HERE\n'
    expect_error(tree, head + OUT + A + B + N + LAUNCH, "size 'large' does not define 'n'", "arg 'out' shape[0]")


def test_non_positive_dimensions(tree):
    expect_error(tree, HEAD.replace("small = { n = 1024 }", "small = { n = 0 }  # HERE") + OUT + A + B + N + LAUNCH,
                 "n = 0 must be positive")
    expect_error(tree, HEAD + OUT + A.replace('shape = ["n"]', 'shape = ["n - 1024"]  # HERE') + B + N + LAUNCH,
                 "'n - 1024' = 0 at size 'small' must be positive")
    expect_error(tree, HEAD + OUT + A + B + N + '[launch]\ngrid = [1]\nblock = [2048]  # HERE\n',
                 "2048 threads", "1024")
    expect_error(tree, HEAD + OUT + A + B + N + LAUNCH + 'shared_bytes = "-4"  # HERE\n', "must be >= 0")


def test_reference_missing(tree):
    expect_error(tree, HEAD + OUT + A + B + N + LAUNCH + '[reference]\npython = "nope_ref.py:reference"  # HERE\n',
                 "nope_ref.py not found")
    expect_error(tree, HEAD + OUT + A + B + N + LAUNCH + '[reference]\nkernel = "vecadd_rf"  # HERE\n',
                 "'vecadd_rf' is not in", "vecadd_ref")
    expect_error(tree, HEAD + OUT + A + B + N + LAUNCH + '[reference]  # HERE\n', "needs python")


def test_reference_kernel_ok_and_signature_checked(tree):
    s = load_spec(write(tree, HEAD + OUT + A + B + N + LAUNCH + '[reference]\nkernel = "vecadd_ref"\n'))
    assert s.reference["kernel"] == "vecadd_ref" and s.reference["step"].grid == ("cdiv(n, 256)",)
    assert s.reference["step"].pointers == (True, True, True, False)
    with pytest.raises(SpecError, match="reference. kernel: .*partial_sums"):
        load_spec(write(tree, HEAD + OUT + A + B + N + LAUNCH + '[reference]\nkernel = "partial_sums"\n'))


def test_bad_tolerance(tree):
    base = HEAD + OUT + A + B + N + LAUNCH + "[tolerance]\n"
    expect_error(tree, base + "rtol = -1e-4  # HERE\n", "rtol = -0.0001 must be a finite number >= 0")
    expect_error(tree, base + 'atol = "tight"  # HERE\n', "atol = 'tight'")
    expect_error(tree, base + "rtol = 1.5  # HERE\n", "100% wrong")
    expect_error(tree, base + "eps = 1  # HERE\n", "unknown key 'eps'")


def test_vector_type_needs_trailing_dimension(tree):
    text = ('kernel = "vec4"\n[sizes]\ns = { n = 64 }\n'
            '[[args]]\nname = "out"\ndtype = "float32"\nshape = ["n"]  # HERE\noutput = true\n'
            '[[args]]\nname = "in"\ndtype = "float32"\nshape = ["n", 4]\n' + N + LAUNCH)
    expect_error(tree, text, "'out' is float4*", "trailing dimension of 4")


def test_launch_and_launches_errors(tree):
    with pytest.raises(SpecError, match=r"missing \[launch\]"):
        load_spec(write(tree, HEAD + OUT + A + B + N))
    bad_step = MULTI.replace('args = ["partial", "out", "cdiv(n, 256)"]', 'args = ["partial", "out"]  # HERE')
    expect_error(tree, bad_step, "finish(partial, out, m) takes 3 parameters", "passes 2")
    scalar_for_ptr = MULTI.replace('args = ["in", "partial", "n"]', 'args = ["in", "n", "n"]  # HERE')
    expect_error(tree, scalar_for_ptr, "'partial' of partial_sums is a pointer", "'n' is not an arg or scratch")
    unused = MULTI.replace('[[launches]]\nkernel = "partial_sums"',
                           '[[scratch]]  # HERE\nname = "spare"\ndtype = "float32"\nshape = [4]\n'
                           '[[launches]]\nkernel = "partial_sums"', 1)
    expect_error(tree, unused, "scratch 'spare' is not passed to any launch")


def test_sizes_as_tables_and_dotted_keys(tree):
    text = ('kernel = "vecadd"\n[sizes.small]\nn = 1024\n[sizes.large]  # HERE\nm = 3\n'
            + OUT + A + B + N + LAUNCH)
    expect_error(tree, text, "size 'large' does not define 'n'")
    dotted = 'kernel = "vecadd"\nsizes.small = { n = 64 }\nsizes.big = { n = -1 }  # HERE\n' + OUT + A + B + N + LAUNCH
    expect_error(tree, dotted, "n = -1 must be positive")


def test_toml_type_errors(tree):
    expect_error(tree, HEAD + OUT.replace("output = true", 'output = "yes"  # HERE') + A + B + N + LAUNCH,
                 "output must be true or false")
    expect_error(tree, HEAD + OUT + A + B + N + '[launch]\ngrid = ["cdiv(n, 256)"]\nblock = [256]\nthreads = 4  # HERE\n',
                 "unknown key 'threads'")


# --- init_spec ------------------------------------------------------------------------

def test_init_spec_round_trip(tree):
    text = init_spec(tree / "k.cu", "vecadd")
    assert "# No reference" in text and "\n[reference]" not in text
    p = write(tree, text)
    s = load_spec(p)
    assert [a.name for a in s.args] == ["out", "a", "b", "n"]
    assert s.args[0].output and s.args[1].fill == "randn" and s.args[3].value == "n"
    assert s.shape("out") == s.shape("a") == (s.sizes["small"]["n"],)  # from `out[i]` under `i < n`
    assert s.launches[0].grid == ("cdiv(n, 256)",)  # from the launch site, BLOCK substituted
    assert s.launches[0].block == ("256",)
    assert NO_REFERENCE in s.warnings


def test_init_spec_vector_half_and_float_scalar(tree):
    for kernel in ("vec4", "hscale", "partial_sums"):
        text = init_spec(tree / "k.cu", kernel)
        s = load_spec(write(tree, text, f"k.{kernel}.kernelpro.toml"))
        assert s.kernel == kernel
    s = load_spec(tree / "k.hscale.kernelpro.toml")
    assert s.arg("y").dtype == "float16" and float(s.arg("alpha").value) > 0 and s.arg("alpha").dtype == "float32"
    assert s.arg("n").dtype == "uint32"
    s = load_spec(tree / "k.vec4.kernelpro.toml")
    assert s.arg("out").shape[-1] == "4" and s.arg("in").shape[-1] == "4"  # float4: a trailing dimension of 4


@pytest.mark.skipif(not EXAMPLES.is_dir(), reason="no examples/")
def test_init_spec_round_trip_on_examples(tmp_path):
    done = 0
    for cu in sorted(EXAMPLES.glob("*.cu"))[:8]:
        src = parse_source(cu.read_text(), str(cu))
        for k in src.kernels:
            text = init_spec(cu, k.name)
            p = tmp_path / f"{cu.stem}.{k.name}.kernelpro.toml"
            p.write_text(text)
            s = load_spec(p, source=src)
            assert s.kernel == k.name and len(s.args) == len(k.params)
            done += 1
    assert done >= 4


def test_init_spec_grid_from_dim3(tmp_path):
    cu = tmp_path / "mm.cu"
    cu.write_text("""\
__global__ void mm(const float* A, const float* B, float* C, int M, int N, int K) {}
void go(const float* A, const float* B, float* C, int M, int N, int K) {
  dim3 grid((N + 15) / 16, (M + 15) / 16);
  mm<<<grid, dim3(16, 16)>>>(A, B, C, M, N, K);
}
""")
    text = init_spec(cu, "mm")
    p = tmp_path / "mm.kernelpro.toml"
    p.write_text(text)
    s = load_spec(p)
    assert s.launches[0].grid == ("cdiv(N, 16)", "cdiv(M, 16)") and s.block_threads() == 256
    assert set(s.sizes["small"]) == {"M", "N", "K"}
    with pytest.raises(SpecError, match="kernels there: mm"):
        init_spec(cu, "nope")


# --- reference loading ----------------------------------------------------------------

def test_load_reference(tree):
    s = load_spec(write(tree, GOOD))
    ref = load_reference(s)
    a, b = np.ones(4, np.float32), np.arange(4, dtype=np.float32)
    out = ref({"a": a, "b": b}, {"n": 4})
    assert np.array_equal(out["out"], a + b)


def test_load_reference_errors(tree):
    s = load_spec(write(tree, GOOD.replace("vecadd_ref.py:reference", "vecadd_ref.py:broken")))
    with pytest.raises(SpecError) as ei:
        load_reference(s)({"a": np.ones(2), "b": np.ones(2)}, {"n": 2})
    assert ei.value.file == str(tree / "vecadd_ref.py") and ei.value.line == 8
    assert "KeyError" in ei.value.reason
    s = load_spec(write(tree, GOOD.replace("vecadd_ref.py:reference", "vecadd_ref.py:wrong_key")))
    with pytest.raises(SpecError, match="returned 'c', which is not an output"):
        load_reference(s)({"a": np.ones(2), "b": np.ones(2)}, {"n": 2})
    s = load_spec(write(tree, GOOD.replace("vecadd_ref.py:reference", "vecadd_ref.py:missing")))
    with pytest.raises(SpecError, match="no function 'missing'.*reference, broken, wrong_key"):
        load_reference(s)
    (tree / "bad_ref.py").write_text("import numpy as np\n\nx = 1 / 0\n")
    s = load_spec(write(tree, GOOD.replace("vecadd_ref.py:reference", "bad_ref.py:reference")))
    with pytest.raises(SpecError) as ei:
        load_reference(s)
    assert ei.value.line == 3 and "ZeroDivisionError" in ei.value.reason
    (tree / "syn_ref.py").write_text("def reference(inputs, sizes)\n    return {}\n")
    s = load_spec(write(tree, GOOD.replace("vecadd_ref.py:reference", "syn_ref.py:reference")))
    with pytest.raises(SpecError, match="syntax error") as ei:
        load_reference(s)
    assert ei.value.line == 1


def test_loads_spec_with_given_source(tree):
    src = parse_source(CU, str(tree / "elsewhere.cu"))
    s = loads_spec(GOOD, tree / "x.kernelpro.toml", source=src)
    assert s.source_path == tree / "elsewhere.cu"


# --- the safe evaluator ---------------------------------------------------------------

@pytest.mark.parametrize("bad", [
    "__import__('os')", "__import__('os').system('true')", "n.__class__", "(1).real", "open('x')",
    "abs(n)", "cdiv(n)", "min(n, key=1)", "[n]", "n[0]", "'n'", "lambda: 1", "n if n else 1", "n < 3",
    "n and 1", "~n", "2 ** 100000", "n ** 65", "9 ** 9 ** 9", "True", "cdiv", "*n", "n; 1", "",
    "x" * 400, "10 ** 19", "1e308 * 10.0", "n << 2",
])
def test_evaluator_rejects(bad):
    with pytest.raises(ExprError):
        evaluate(bad, {"n": 5})


def test_evaluator_accepts():
    env = {"n": 1000, "m": 7}
    assert evaluate("cdiv(n, 256)", env) == 4 and evaluate("ceil_div(n, 256)", env) == 4
    assert evaluate("min(n, 512, m * 100) + max(1, m)", env) == 519
    assert evaluate("n // 3 + n % 3 - -2", env) == 336
    assert evaluate("2 ** 10 * (n + 24) // 1024", env) == 1024
    assert evaluate("n / 8", env) == 125 and isinstance(evaluate("n / 8", env), int)
    assert evaluate("n / 3", env) == pytest.approx(333.333, rel=1e-5)
    assert evaluate("1.5 * m", env) == 10.5 and evaluate(12, env) == 12
    assert parse_expr("cdiv(n, m) * k").names == {"n", "m", "k"}
    with pytest.raises(ExprError, match="not an integer"):
        evaluate_int("n / 3", env)
    with pytest.raises(ExprError, match="unknown size variable 'q'"):
        evaluate("q + 1", env)
    with pytest.raises(ExprError, match="division by zero"):
        evaluate("n // (m - 7)", env)


def test_a_launch_written_for_a_kernels_first_step_is_rebound_for_its_other_steps():
    """The chain D = (A B) C launches one product twice, the second time as (M, P, N): a tiled candidate's grid,
    written in the first launch's sizes, must follow each launch's own arguments (on the H100 the second product
    ran four times the blocks it needed: 5.4 ms where 1.3 ms would do)."""
    from kernelpro.optimizer import spec_edit
    from kernelpro.optimizer.builtin import scalar_params_of
    import dataclasses

    from kernelpro.profilers.runtime.spec import rebind_launch

    chain = EXAMPLES.parent / "benchmarks" / "suite" / "gemm_chain" / "naive.kernelpro.toml"
    spec = load_spec(chain)
    tiles = {"grid": ["cdiv((N), 128)", "cdiv((M), 128)"], "block": [256]}
    new = spec.with_launch(tiles)
    assert [s.grid for s in new.launches] == [("cdiv((N), 128)", "cdiv((M), 128)"), ("cdiv(((P)), 128)", "cdiv((M), 128)")]
    assert [new.grid(s, "large") for s in new.launches] == [(32, 32), (8, 32)]
    text = spec_edit.render_spec(chain.read_text(), tiles)  # the branch's spec says the same
    assert [s.grid for s in loads_spec(text, chain).launches] == [s.grid for s in new.launches]
    # the kernel's parameters read through the first launch's arguments, by position
    assert scalar_params_of(spec, "matmul", chain.with_name("naive.cu")) == {"M": "M", "N": "N", "K": "K"}
    swapped = dataclasses.replace(spec, launches=list(reversed(spec.launches)))
    assert scalar_params_of(swapped, "matmul", chain.with_name("naive.cu")) == {"M": "M", "N": "P", "K": "N"}
    # a value that is a bare size variable is followed too; a name passed as two different arguments is refused
    assert rebind_launch({"grid": ["n / 4"]}, ["x", "n"], ["x", "m"], {"n": "N", "m": "M"}) == {"grid": ["(m) / 4"]}
    assert rebind_launch({"grid": ["N / 4"]}, ["x", "n"], ["x", "m"], {"n": "N", "m": "M"}) == {"grid": ["(M) / 4"]}
    with pytest.raises(ValueError, match="two different arguments"):
        rebind_launch({"grid": ["N"]}, ["N", "N"], ["A", "B"])
    with pytest.raises(ValueError, match="two different arguments"):  # N kept for one parameter, P for the other
        rebind_launch({"grid": ["cdiv(N, 16)"]}, ["A", "B", "C", "N", "N", "N"], ["C", "D", "E", "N", "P", "N"])
