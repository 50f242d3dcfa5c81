"""Launch specs inferred from kernels (issue 28): `kernelpro spec init` on the corpus in tests/specinfer/
(written here in varied styles, each with the shapes, roles and sizes it must get in its `// expect:`
line) and on the project's examples: the spec loads, `spec check` finds nothing, and it runs in the CPU
emulator against the kernel-as-reference snapshot with no edit. Then each inference source on its own,
the snapshot not moving when the kernel is edited, the new `spec check` errors, and the CLIs."""
from __future__ import annotations

import math
import re
import shutil
import sys
from pathlib import Path

import pytest

from kernelpro.profilers.runtime.expr import parse_expr
from kernelpro.profilers.runtime.infer import infer_spec, write_spec
from kernelpro.profilers.runtime.spec import load_spec
from kernelpro.profilers.runtime.speccheck import check_spec
from kernelpro.profilers.source import parse_source

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "specinfer"
EXAMPLES = HERE.parent / "examples"
# examples whose spec is not expected to run as inferred, and why (the inference says so in a note)
LIMITS = {"b_naive_matmul_fixed.cu": "passes its pointers to nvcuda::wmma loads, which the analysis does not follow"}


def _jobs(root: Path) -> list[tuple[Path, str]]:
    out = []
    for f in sorted(list(root.rglob("*.cu")) + list(root.rglob("*.cuh"))):
        if ".reference." in f.name:
            continue
        out += [(f, k.name) for k in parse_source(f.read_text(), str(f)).kernels]
    return out


def _infer_all(root: Path) -> list[dict]:
    done = []
    for f, k in _jobs(root):
        plan = infer_spec(f, k, spec_path=f.with_name(f"{f.stem}.{k}.kernelpro.toml"))
        write_spec(plan)
        spec = load_spec(plan.spec_path)
        done.append({"file": f, "kernel": k, "plan": plan, "spec": spec, "check": check_spec(spec)})
    return done


@pytest.fixture(scope="module")
def inferred(tmp_path_factory) -> dict[str, list[dict]]:
    """Every corpus kernel and example, inferred in a copy of its folder."""
    root = tmp_path_factory.mktemp("specinfer")
    shutil.copytree(CORPUS, root / "corpus")
    (root / "examples").mkdir()
    for f in list(EXAMPLES.glob("*.cu")) + [EXAMPLES / "gpu" / "vecadd.cu"]:
        shutil.copy(f, root / "examples" / f.name)
    return {"corpus": _infer_all(root / "corpus"), "examples": _infer_all(root / "examples")}


# --- the corpus and the examples ---------------------------------------------------------------------
def _expectations(path: Path) -> list[str]:
    out = []
    for m in re.finditer(r"//\s*expect:\s*(.*)", path.read_text()):
        out += [x.strip() for x in m.group(1).split(";") if x.strip()]
    return out


def _split(text: str) -> list[str]:
    """Comma-separated expressions, commas inside brackets kept: `cdiv(N, 16), M`."""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return [x.strip() for x in out + [cur] if x.strip()]


def _env(spec, size: str, consts: dict) -> dict:
    return {**consts, **spec.env(size)}


def _check_expectation(item: str, spec, consts: dict) -> None:
    sizes = list(spec.sizes)
    m = re.fullmatch(r"(\w+) \[(.*)\] (in|out|inout)", item)
    if m:
        name, dims, role = m.groups()
        a = spec.arg(name)
        assert a is not None and a.is_buffer, f"{name} is not a buffer of the spec"
        for s in sizes:
            want = [parse_expr(d).evaluate(_env(spec, s, consts)) for d in _split(dims)]
            got = spec.shape(name, s)
            assert math.prod(got) == math.prod(want), f"{name} at {s}: shape {got}, expected {want} ({item})"
        assert (a.output, a.fill is not None) == {"in": (False, True), "out": (True, False),
                                                  "inout": (True, True)}[role], f"{name}: not {role}"
        return
    m = re.fullmatch(r"dtype (\w+) (\w+)", item)
    if m:
        assert spec.arg(m.group(1)).dtype == m.group(2), item
        return
    m = re.fullmatch(r"(grid|block) \[(.*)\]", item)
    if m:
        step = spec.launches[0]
        for s in sizes:
            want = [parse_expr(d).evaluate(_env(spec, s, consts)) for d in _split(m.group(2))]
            got = list((spec.grid if m.group(1) == "grid" else spec.block)(step, s))
            assert got + [1] * (len(want) - len(got)) == want + [1] * (len(got) - len(want)), f"{item}: {got} at {s}"
        return
    m = re.fullmatch(r"host (.*)", item)
    if m:
        want = {k.strip(): int(v) for k, v in (p.split("=") for p in m.group(1).split(","))}
        assert any(all(env.get(k) == v for k, v in want.items()) for env in spec.sizes.values()), \
            f"{item}: sizes {spec.sizes}"
        return
    if item == "fixed":
        assert list(spec.sizes) == ["fixed"] and not spec.check_sizes, spec.sizes
        return
    if item == "no off-by-one":
        assert not spec.check_sizes, spec.check_sizes
        return
    raise AssertionError(f"unknown expectation {item!r}")


def test_the_corpus_has_thirty_kernels_in_its_styles():
    jobs = _jobs(CORPUS)
    texts = {f: f.read_text() for f, _ in jobs}
    assert len(jobs) >= 30
    styles = {"3-D": "blockIdx.z", "template": "template <", "typedef": "typedef", "row pointer": "* cols;",
              "several per thread": "4 * (", "header": ".cuh", "host": "cudaMalloc", "shared": "__shared__"}
    for style, mark in styles.items():
        assert any(mark in t or mark in str(f) for f, t in texts.items()), style
    assert sum("cudaMalloc" not in t and "<<<" not in t for t in texts.values()) >= 10  # no host code


@pytest.mark.slow  # the module's inference of 68 kernels (about 6 s)
def test_corpus_specs_pass_check_and_have_the_expected_shapes(inferred):
    checked = 0
    for job in inferred["corpus"]:
        spec, (errors, _) = job["spec"], job["check"]
        assert not errors, f"{job['file'].name}: {errors}"
        consts = parse_source(job["file"].read_text()).constants
        items = _expectations(job["file"])
        assert items, f"{job['file'].name} has no // expect: line"
        for item in items:
            _check_expectation(item, spec, consts)
            checked += 1
        assert not [n for n in job["plan"].notes if "GUESS" in n and "shape" in n], job["plan"].notes
    assert checked > 100


@pytest.mark.slow  # the module's inference of 68 kernels (about 6 s)
def test_examples_specs_pass_check(inferred):
    for job in inferred["examples"]:
        assert not job["check"][0], f"{job['file'].name}: {job['check'][0]}"
        if job["file"].name in LIMITS:
            assert any("GUESS" in n for n in job["plan"].notes)  # the pointers it cannot bound are said
    assert len(inferred["examples"]) >= 25


@pytest.mark.slow  # the module's inference of 68 kernels (about 6 s)
def test_every_value_says_where_it_came_from(inferred):
    for job in inferred["corpus"]:
        data = job["plan"].to_json()
        for a in data["args"]:
            for key in ("dtype", "shape", "role", "value"):
                if key in a:
                    assert a[key]["from"], (job["file"].name, a["name"], key)
        for key in ("grid", "block", "shared_bytes"):
            assert data["launch"][key]["from"]
        text = job["plan"].spec_path.read_text()
        assert all("#" in line for line in text.split("[reference]")[0].splitlines()
                   if re.match(r"(dtype|shape|value|grid|block) = ", line)), job["file"].name


@pytest.mark.slow
def test_inferred_specs_run_in_the_emulator_against_the_kernel_as_reference(inferred, tmp_path):
    """Each spec as inferred, no edit: the kernel and its snapshot on the same inputs at the small size and
    its off-by-one neighbours, compared as the GPU runtime compares them."""
    sys.path.insert(0, str(HERE))
    from spec_emu import SpecRun, SpecRuns, smallest_sizes

    jobs = [j for j in inferred["corpus"] + inferred["examples"] if j["file"].name not in LIMITS]
    runs = [SpecRun(j["spec"], j["plan"].instantiation or j["kernel"]) for j in jobs]
    batch = SpecRuns(runs, str(tmp_path))
    passed, failed = 0, []
    for job, run in zip(jobs, runs):
        for size in smallest_sizes(run.spec):
            chk, got, want = batch.check(run, size)
            if not chk.ok:
                failed.append(f"{job['file'].name} {job['kernel']} {size}: {chk.reason[:200]}")
        passed += 1
    assert not failed, failed
    assert passed >= 30 + 25


SUITE = HERE.parent / "benchmarks" / "suite"


def _role(a) -> str:
    return "out" if a.output and not a.fill else "inout" if a.output else "in"


@pytest.mark.slow
@pytest.mark.skipif(not SUITE.is_dir(), reason="no benchmarks/suite")
def test_inferred_shapes_match_the_hand_written_specs_of_the_suites_naive_kernels(tmp_path):
    """The suite's naive kernels come with hand-written specs: the inferred spec of each (specs of one launch)
    gives every buffer the same dtype, role and number of elements at the hand-written sizes."""
    matched, missed = 0, []
    for hand_path in sorted(SUITE.glob("*/naive*.kernelpro.toml")):
        hand = load_spec(hand_path)
        if len(hand.launches) > 1:
            continue  # a sequence of kernels: not what one kernel's inference describes
        folder = tmp_path / hand_path.parent.name
        if not folder.exists():
            shutil.copytree(hand_path.parent, folder, ignore=shutil.ignore_patterns("*.kernelpro.toml", "*.json"))
        src = folder / Path(hand.source_path).name
        plan = infer_spec(src, hand.kernel, spec_path=folder / f"{src.stem}.inferred.kernelpro.toml")
        write_spec(plan, force=True)
        mine = load_spec(plan.spec_path)
        problems = [] if not check_spec(mine)[0] else ["spec check"]
        for a in hand.args:
            m = mine.arg(a.name)
            if not a.is_buffer:
                continue
            if m.dtype != a.dtype or (_role(m) != _role(a) and (_role(a), _role(m)) != ("inout", "out")):
                problems.append(f"{a.name}: {m.dtype} {_role(m)} vs {a.dtype} {_role(a)}")
            for size, env in hand.sizes.items():
                mine_n = math.prod(parse_expr(x).evaluate(env) for x in m.shape)
                if mine_n != math.prod(hand.shape(a.name, size)):
                    problems.append(f"{a.name} at {size}: {list(m.shape)} vs {list(a.shape)}")
                    break
        if problems:
            missed.append(f"{hand_path.parent.name}/{hand_path.name}: {problems}")
        else:
            matched += 1
    # what is left: a pointer stepped through a loop (colmatvec/naive_ptr)
    assert matched >= 48 and len(missed) <= 1, missed


def test_a_template_tiled_product_s_spec_is_inferred_and_checked_without_a_crash(tmp_path):
    """Round E's `template <int BLOCK_SIZE>` tiled product: the unwritten-outputs check met a bound whose end has no
    value at the size (the template's tile count) and subtracted from None; such a bound is now skipped."""
    src = Path(__file__).parent / "probe_e" / "mm_template_tiled.cu"
    shutil.copy(src, tmp_path / src.name)
    plan = infer_spec(tmp_path / src.name, "MatrixMulCUDA")
    write_spec(plan)
    spec = load_spec(plan.spec_path)
    assert [list(a.shape) for a in spec.args if a.name in ("A", "B", "C")] == [["hA", "wB"], ["hA", "wA"], ["wA", "wB"]]
    errors, _ = check_spec(spec)
    assert not errors, errors


def test_a_launcher_s_own_constant_template_argument_is_its_value_and_a_struct_by_value_is_said(tmp_path):
    """Round F: `constexpr int TILE = 16; matmul_tiled<T, TILE><<<...>>>` in a function template runs
    matmul_tiled<float, 16> (TILE is no size); the programming guide's `Matrix A` passed by value cannot be a spec's
    argument, and `spec init` says so instead of writing a float scalar."""
    from kernelpro.profilers.runtime.infer import InferError
    probe = Path(__file__).parent / "probe_f"
    shutil.copy(probe / "f29_template_tiled_launcher.cu", tmp_path / "t.cu")
    plan = infer_spec(tmp_path / "t.cu", "matmul_tiled")
    write_spec(plan)
    spec = load_spec(plan.spec_path)
    assert "matmul_tiled<float, 16>" in plan.spec_path.read_text()
    assert all("TILE" not in env for env in spec.sizes.values()), spec.sizes
    errors, _ = check_spec(spec)
    assert not errors, errors
    shutil.copy(probe / "f07_guide_matrix_struct.cu", tmp_path / "m.cu")
    with pytest.raises(InferError, match=r"`Matrix A` is a struct passed by value"):
        infer_spec(tmp_path / "m.cu", "MatMulKernel")


def test_a_block_the_shared_array_gives_stays_where_the_index_steps_by_a_multiple_of_it(tmp_path):
    """Harris's reduce6 (`template <unsigned blockSize>`, `sdata[blockSize]`, `i = blockIdx.x * (blockSize * 2) +
    tid`): once the template's 256 is known, the index's 512 is two elements a thread, not a block of 512 (which
    overran `sdata` in the emulator); the grid stays one block per 512 elements."""
    src = Path(__file__).parent / "probe27" / "harris_reduce6.cu"
    shutil.copy(src, tmp_path / src.name)
    plan = infer_spec(tmp_path / src.name, "reduce6")
    write_spec(plan)
    spec = load_spec(plan.spec_path)
    step = spec.launches[0]
    assert list(spec.block(step, "small")) == [256] and list(spec.grid(step, "small")) == [-(-1000 // 512)]


def test_a_one_block_kernel_s_buffers_follow_its_guard_and_its_sizes_stay_within_the_block(tmp_path):
    """Round G's GPU Gems scan (`<<<1, MAX_N>>>`, `if (thid < n)`, a shared double buffer `temp[2 * MAX_N]` indexed
    `pout * n + thid`): its buffers hold n elements as the host allocates them (the guard's bound, not the block's
    512, which hid that n = 1000 leaves outputs unwritten and overran `temp` in the emulator), and the small size
    stays within the one block; the spec runs against the kernel as written."""
    from kernelpro.profilers.runtime.speccheck import check_spec as check
    sys.path.insert(0, str(HERE))
    from spec_emu import check_spec as emulate
    shutil.copy(HERE / "probe_g" / "g34_hillis_steele_scan.cu", tmp_path / "s.cu")
    plan = infer_spec(tmp_path / "s.cu", "scan_naive")
    write_spec(plan)
    spec = load_spec(plan.spec_path)
    assert [str(d) for d in spec.arg("g_odata").shape] == ["n"], plan.spec_path.read_text()
    assert all(env["n"] <= 512 for env in spec.sizes.values()), spec.sizes
    errors, _ = check(spec)
    assert not errors, errors
    for size, chk in emulate(spec, workdir=str(tmp_path)):
        assert chk.ok, (size, chk.reason)


def test_a_program_constant_s_shared_memory_is_a_number_and_a_batch_of_heads_on_z_is_a_grid_dimension(tmp_path):
    """Round H: `size_t shmem = 2 * TS * TS * sizeof(float);` with `const int TS = 16` in main is 2048 bytes, not a
    size for the small size to shrink (it was 29 there, and the emulator's shared buffer overflowed); a kernel with
    no launch whose `b = blockIdx.z / H; h = blockIdx.z % H` under `b < B` gets a grid of B * H in z (its writes
    left most of `out` unwritten without it). Both specs run against the kernel as written."""
    sys.path.insert(0, str(HERE))
    from spec_emu import check_spec as emulate
    from kernelpro.profilers.runtime.speccheck import check_spec as check
    for name, kernel in (("h17_dynsmem_tiled.cu", "sgemm_dyn_smem"), ("h10_attn_pv_interleaved.cu", "attention_pv_kernel")):
        shutil.copy(HERE / "probe_h" / name, tmp_path / name)
        plan = infer_spec(tmp_path / name, kernel)
        write_spec(plan)
        spec = load_spec(plan.spec_path)
        step = spec.launches[0]
        size = min(spec.sizes, key=lambda s: sum(spec.sizes[s].values()))
        if kernel == "sgemm_dyn_smem":
            assert str(step.shared_bytes) == "2048" and "shmem" not in spec.sizes[size], (step.shared_bytes, spec.sizes)
        else:
            env = spec.sizes[size]
            assert list(spec.grid(step, size))[2] == env["B"] * env["H"], (spec.grid(step, size), env)
        errors, _ = check(spec)
        assert not errors, errors
        (tmp_path / kernel).mkdir()
        for s, chk in emulate(spec, workdir=str(tmp_path / kernel)):
            assert chk.ok, (name, s, chk.reason)


def test_a_buffer_written_through_the_file_s_own_helper_is_an_output(tmp_path):
    """Round I: `atomicMaxFloat(d_max, cache[0])`, a `__device__` helper doing `atomicMax((int *)addr, ..)`: d_max is
    written (inout: the atomic reads it too), so the kernel-as-reference run has an output to compare (it had none);
    a helper that only reads its pointer leaves it an input."""
    sys.path.insert(0, str(HERE))
    from spec_emu import check_spec as emulate
    shutil.copy(HERE / "probe_i" / "i21_max_atomic_float.cu", tmp_path / "m.cu")
    plan = infer_spec(tmp_path / "m.cu", "max_reduce")
    write_spec(plan)
    spec = load_spec(plan.spec_path)
    assert spec.arg("d_max").output and not spec.arg("d_array").output
    for size, chk in emulate(spec, workdir=str(tmp_path)):
        assert chk.ok, (size, chk.reason)
    reads = (tmp_path / "m.cu").read_text().replace("atomicMax((int *)addr, __float_as_int(value))",
                                                     "__float_as_int(*addr)").replace(
        "atomicMin((unsigned int *)addr, __float_as_uint(value))", "__float_as_uint(*addr)")
    (tmp_path / "r.cu").write_text(reads)
    role = next(a.role.value for a in infer_spec(tmp_path / "r.cu", "max_reduce").args if a.name == "d_max")
    assert role == "input", role


def test_a_kernel_launched_from_a_host_template_instantiated_twice_runs_the_first_in_its_namespace(tmp_path):
    """Round K: `gram::gram_matrix_kernel<T><<<...>>>` inside `template <typename T> cudaError_t gram_matrix(...)`,
    instantiated for float and for double: T is the first instantiation's float (it was kept as `T`, so no dtype),
    and the spec names it (`template = ["float"]`) since the cubin holds both; the kernel in its namespace runs
    against the kernel as written."""
    sys.path.insert(0, str(HERE))
    from spec_emu import check_spec as emulate
    shutil.copy(HERE / "probe_k" / "k02_gram_template.cu", tmp_path / "g.cu")
    plan = infer_spec(tmp_path / "g.cu", "gram_matrix_kernel")
    write_spec(plan)
    spec = load_spec(plan.spec_path)
    assert spec.template == ("float",) and spec.arg("A").dtype == "float32", (spec.template, spec.arg("A").dtype)
    for size, chk in emulate(spec, kernel_name="gram_matrix_kernel<float>", workdir=str(tmp_path)):
        assert chk.ok, (size, chk.reason)
    # one instantiation of the host template: T from it, and no template line needed
    once = (tmp_path / "g.cu").read_text().replace(
        "template cudaError_t gram_matrix<double>(const double *, double *, int, int, cudaStream_t);", "")
    (tmp_path / "h.cu").write_text(once)
    plan = infer_spec(tmp_path / "h.cu", "gram_matrix_kernel")
    write_spec(plan)
    assert load_spec(plan.spec_path).arg("A").dtype == "float32"


def test_a_host_template_s_instantiation_is_read_from_code_not_comments_or_other_templates(tmp_path):
    """Found by a second reading: `gram_matrix<double>` in a comment, and `gram_matrix<U>` in another template,
    are no instantiations; the float one is read."""
    original = (HERE / "probe_k" / "k02_gram_template.cu").read_text()
    first = "template cudaError_t gram_matrix<float>(const float *, float *, int, int, cudaStream_t);"
    assert first in original
    text = original.replace(
        "template cudaError_t gram_matrix<double>(const double *, double *, int, int, cudaStream_t);", "").replace(
        first, "// an older version called gram_matrix<double>(dA, dG, n, d)\n"
        "template <typename U> cudaError_t wrap(const U* a, U* g, int n, int d) "
        "{ return gram_matrix<U>(a, g, n, d, 0); }\n" + first)
    (tmp_path / "g.cu").write_text(text)
    plan = infer_spec(tmp_path / "g.cu", "gram_matrix_kernel")
    write_spec(plan)
    spec = load_spec(plan.spec_path)
    assert spec.template == ("float",) and spec.arg("A").dtype == "float32", (spec.template, spec.arg("A").dtype)


def test_a_cufloatcomplex_buffer_is_two_floats_an_element(tmp_path):
    """Round L: a batched conjugate transpose of `cuFloatComplex` (cuComplex.h) inferred as float32 with a trailing
    dimension of 2 (it was float32 and half the bytes, a GUESS), and run against the kernel as written."""
    sys.path.insert(0, str(HERE))
    from spec_emu import check_spec as emulate
    shutil.copy(HERE / "probe_l" / "l15_batched_conj_transpose.cu", tmp_path / "c.cu")
    plan = infer_spec(tmp_path / "c.cu", "batched_conj_transpose")
    write_spec(plan)
    spec = load_spec(plan.spec_path)
    assert spec.arg("src").dtype == "float32" and spec.arg("src").shape[-1] in (2, "2"), spec.arg("src").shape
    assert "GUESS" not in plan.spec_path.read_text().split("[[args]]", 1)[1].split("[launch]")[0]
    for size, chk in emulate(spec, kernel_name="batched_conj_transpose", workdir=str(tmp_path)):
        assert chk.ok, (size, chk.reason)
