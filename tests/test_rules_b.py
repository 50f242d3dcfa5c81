"""Group B static rules on their example kernels (real nvcc/nvdisasm), and on small sources."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pytest

from kernelpro.profilers.advice import Severity
from kernelpro.profilers.compile import compile_cuda
from kernelpro.profilers.profile import profile_file
from kernelpro.profilers.rules.bank_conflicts import bank_conflicts, conflict_ways
from kernelpro.profilers.rules.sync_divergence import sync_divergence
from kernelpro.profilers.source import parse_source
from kernelpro.profilers.tools import Context, load_builtin

EX = Path(__file__).resolve().parent.parent / "examples"


@lru_cache(maxsize=None)
def report(name: str):
    r = profile_file(EX / name)
    assert r.ok, [d.message for d in r.errors]
    return r


def rule(r, rule_id):
    return [a for a in r.advice if a.rule == rule_id]


def lines_with(name: str, needle: str) -> list[int]:
    return [i for i, l in enumerate((EX / name).read_text().split("\n"), 1) if needle in l]


def apply_edits(text: str, edits: list[dict]) -> str:
    """Apply 1-based, end-exclusive, character-column edits, last first."""
    lines = text.split("\n")
    starts = [0]
    for l in lines:
        starts.append(starts[-1] + len(l) + 1)
    off = lambda ln, col: starts[ln - 1] + col - 1  # noqa: E731
    for e in sorted(edits, key=lambda e: (e["line"], e["column"]), reverse=True):
        a, b = off(e["line"], e["column"]), off(e["end_line"], e["end_column"])
        text = text[:a] + e["new_text"] + text[b:]
    return text


def fixed_report(tmp_path, name: str, advice):
    src = (EX / name).read_text()
    new = apply_edits(src, [e for a in advice for e in a.fix["edits"]])
    path = tmp_path / name
    path.write_text(new)
    art = compile_cuda(path, text=new)
    assert art.ok, [d.message for d in art.errors]
    return new, profile_file(path, text=new)


def ctx_of(text: str, name="k.cu") -> Context:
    return Context(source=parse_source(text, f"/tmp/kp_rules_b/{name}"), artifact=None)


def test_tools_registered_with_rule_ids():
    reg = load_builtin()
    want = {"unroll": {"rolled-constant-loop", "int-div-mod-index", "block-size-loop"},
            "sync_divergence": {"sync-in-divergent-branch"},
            "bank_conflicts": {"shared-bank-conflict"},
            "tensor_cores": {"matmul-without-tensor-cores"}}
    for name, ids in want.items():
        assert set(reg[name].rules) == ids
        assert len(reg[name].description) > 200


# --- rolled-constant-loop ------------------------------------------------------------

def test_rolled_loop_fires_on_the_two_expf_loops():
    adv = rule(report("b_rolled_loop.cu"), "rolled-constant-loop")
    loops = [ln for ln in lines_with("b_rolled_loop.cu", "for (int j = 0; j < PER_LANE; ++j)")]
    expf_loops = [ln for ln in loops if "expf" in (EX / "b_rolled_loop.cu").read_text().split("\n")[ln]]
    assert len(expf_loops) == 2
    assert sorted(a.line for a in adv) == expf_loops  # the fmaxf loop nvcc unrolls by itself is not flagged
    for a in adv:
        assert a.column == 3 and a.kernel == "warp_softmax"
        ev = {e.name: e.value for e in a.evidence}
        assert ev["trip count"] == 32
        assert ev["loop body"] > 10
        assert "bytes back" in ev["backward branch"]
        assert "0x20" in ev["loop counter test"]  # the counter is compared against 32
        assert a.fix["edits"][0]["new_text"] == "  #pragma unroll\n"


def test_rolled_loop_silent_on_twin_and_fix_unrolls(tmp_path):
    assert rule(report("b_rolled_loop_fixed.cu"), "rolled-constant-loop") == []
    adv = rule(report("b_rolled_loop.cu"), "rolled-constant-loop")
    new, r = fixed_report(tmp_path, "b_rolled_loop.cu", adv)
    assert new.count("\n  #pragma unroll\n") == 2
    assert rule(r, "rolled-constant-loop") == []


# --- int-div-mod-index ---------------------------------------------------------------

def test_int_div_mod_fires_on_channel_index():
    adv = rule(report("b_int_divmod.cu"), "int-div-mod-index")
    assert len(adv) == 1  # one advice for the nested (i / hw) % channels
    a = adv[0]
    ln = lines_with("b_int_divmod.cu", "bias[(i / hw) % channels]")[0]
    text = (EX / "b_int_divmod.cu").read_text().split("\n")[ln - 1]
    assert (a.line, a.column, a.end_column) == (ln, text.index("(i / hw)") + 1, text.rindex("]") + 1)
    ev = {e.name: e.value for e in a.evidence}
    assert ev["MUFU.RCP"] >= 1 and ev["I2F.RP"] >= 1
    assert "channels" in ev["divisors"] and "hw" in ev["divisors"]


def test_int_div_mod_silent_on_twin():
    assert rule(report("b_int_divmod_fixed.cu"), "int-div-mod-index") == []


def test_int_div_mod_silent_on_constant_divisor(tmp_path):
    p = tmp_path / "c.cu"
    p.write_text("__global__ void k(const float* in, float* out, int n) {\n"
                 "  for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = in[(i / 48) % 32];\n}\n")
    assert rule(profile_file(p), "int-div-mod-index") == []


# --- sync-in-divergent-branch --------------------------------------------------------

def test_sync_in_branch_fires_on_reduction():
    adv = rule(report("b_sync_reduce.cu"), "sync-in-divergent-branch")
    assert len(adv) == 1
    a = adv[0]
    bl = lines_with("b_sync_reduce.cu", "__syncthreads();")[1]
    cl = lines_with("b_sync_reduce.cu", "    if (tid < s) {")[0]
    assert a.severity == Severity.ERROR and a.line == bl and a.column == 7
    assert f"line {bl}" in a.message and f"line {cl}" in a.message and "tid" in a.message
    assert a.related[0].line == cl
    assert "barrier" in a.remedy


def test_sync_silent_on_twin():
    assert rule(report("b_sync_reduce_fixed.cu"), "sync-in-divergent-branch") == []


SYNC_CASES = """
__global__ void early(float* x, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  s[threadIdx.x] = x[i];
  __syncthreads();
  x[i] = s[255 - threadIdx.x];
}
__global__ void uniform(float* x, int n) {
  __shared__ float s[256];
  if (blockIdx.x == 0) { s[threadIdx.x] = 1.f; __syncthreads(); }
  if (n > 4) __syncthreads();
  for (int t = 0; t < n; ++t) { s[threadIdx.x] += t; __syncthreads(); }
  int lane = threadIdx.x & 31;
  if (lane < 16) __syncwarp(0x0000ffff);
  if (__syncthreads_or(x[threadIdx.x] > 0.f)) x[0] = 1.f;
}
__global__ void perthread(float* x, int n) {
  float v = x[threadIdx.x];
  if (v > 0.f) __syncthreads_count(1);
  for (int j = threadIdx.x; j < n; j += blockDim.x) { __syncthreads(); }
}
"""


def test_sync_cases_from_source():
    adv = sync_divergence(ctx_of(SYNC_CASES))
    got = sorted((a.kernel, a.line) for a in adv)
    assert got == [("early", 7), ("perthread", 21), ("perthread", 22)]
    early = next(a for a in adv if a.kernel == "early")
    assert "return" in early.message and early.related[0].line == 5
    per = next(a for a in adv if a.line == 21)
    assert "per-thread load" in per.message


# --- shared-bank-conflict ------------------------------------------------------------

def test_bank_conflict_fires_on_transpose_read():
    adv = rule(report("b_transpose.cu"), "shared-bank-conflict")
    assert len(adv) == 1
    a = adv[0]
    ln = lines_with("b_transpose.cu", "= tile[threadIdx.x][threadIdx.y + j]")[0]
    text = (EX / "b_transpose.cu").read_text().split("\n")[ln - 1]
    assert (a.line, a.column) == (ln, text.index("tile[threadIdx.x]") + 1)
    assert a.message.startswith(f"32-way bank conflict on line {ln}: a warp reads tile[threadIdx.x][...]")
    assert "32-word row stride" in a.message
    ev = {e.name: e.value for e in a.evidence}
    assert ev["conflict degree"] == 32 and ev["row stride"] == 32 and ev["block shape"] == "32x8x1"
    decl = lines_with("b_transpose.cu", "__shared__ float tile[TILE][TILE];")[0]
    e = a.fix["edits"][0]
    dtext = (EX / "b_transpose.cu").read_text().split("\n")[decl - 1]
    assert (e["line"], e["column"], e["end_column"], e["new_text"]) == (
        decl, dtext.rindex("TILE]") + 1, dtext.rindex("TILE]") + 5, "TILE + 1")


def test_bank_conflict_silent_on_twin_and_fix(tmp_path):
    assert rule(report("b_transpose_fixed.cu"), "shared-bank-conflict") == []
    adv = rule(report("b_transpose.cu"), "shared-bank-conflict")
    new, r = fixed_report(tmp_path, "b_transpose.cu", adv)
    assert "tile[TILE][TILE + 1]" in new
    assert rule(r, "shared-bank-conflict") == []


BANK = """
__global__ void k(double* o, int n) {
  __shared__ double d[32][32];
  __shared__ float4 q[32][32];
  __shared__ float f[32][64];
  __shared__ float g[16][16];
  __shared__ float ok[32][33];
  int tx = threadIdx.x;
  d[threadIdx.y][threadIdx.x] = 0.0;
  for (int kk = 0; kk < n; ++kk) o[tx] += d[tx][kk];
  o[1] = q[threadIdx.x][3].x;
  o[2] = f[tx][5];
  o[3] = g[threadIdx.x][threadIdx.y];
  o[4] = ok[threadIdx.x][7] + f[threadIdx.y][threadIdx.x];
}
void launch(double* o) { k<<<1, dim3(32, 8)>>>(o, 4); }
"""


def test_bank_conflict_degrees_by_element_size():
    adv = {a.line: a for a in bank_conflicts(ctx_of(BANK))}
    assert sorted(adv) == [10, 11, 12, 13]
    ways = {ln: next(e.value for e in a.evidence if e.name == "conflict degree") for ln, a in adv.items()}
    # double: 16 lanes per phase on banks 0-1; float4: 8 lanes per phase; f: 64-word stride;
    # g[16][16] read by a 32x8 block: lanes 0..31 of x -> 16-word rows wrap twice -> 16-way
    assert ways == {10: 16, 11: 8, 12: 32, 13: 16}
    assert adv[10].fix["edits"][0]["new_text"] == "33"  # a literal size becomes N + 1
    assert adv[12].fix["edits"][0]["new_text"] == "65"


def test_conflict_ways_model():
    assert conflict_ways([l * 32 for l in range(32)], 4) == 32
    assert conflict_ways([l * 33 for l in range(32)], 4) == 1
    assert conflict_ways(list(range(32)), 4) == 1
    assert conflict_ways([0] * 32, 4) == 1  # broadcast: one word
    assert conflict_ways([l * 2 for l in range(32)], 8) == 1  # consecutive doubles
    assert conflict_ways([l * 64 for l in range(32)], 8) == 16


def test_bank_conflict_block_shape_16x16():
    src = BANK.replace("dim3(32, 8)", "dim3(16, 16)")
    adv = {a.line: a for a in bank_conflicts(ctx_of(src))}
    g = next(e.value for e in adv[13].evidence if e.name == "conflict degree")
    assert g == 8  # half the warp per row of threads: 16 x-lanes and 2 y-lanes


# --- matmul-without-tensor-cores -----------------------------------------------------

def test_tensor_cores_fires_on_naive_matmul():
    adv = rule(report("b_naive_matmul.cu"), "matmul-without-tensor-cores")
    assert len(adv) == 1
    a = adv[0]
    ln = lines_with("b_naive_matmul.cu", "acc += __half2float(A[row * K + k])")[0]
    assert a.line == ln and a.column == 5 and a.severity == Severity.WARNING
    ev = {e.name: e.value for e in a.evidence}
    assert ev["FMA instructions in the loop"] >= 1 and ev["tensor-core instructions"] == 0
    assert ev["input type"] == "half"
    assert "wmma" in a.remedy and "990" in a.gain_note


def test_tensor_cores_silent_on_wmma_twin():
    r = report("b_naive_matmul_fixed.cu")
    assert rule(r, "matmul-without-tensor-cores") == []
    assert any(i.base == "HMMA" for b in r.artifact.kernels for i in b.sass)


def test_tensor_cores_fp32_matmul_but_not_dot_or_matvec(tmp_path):
    p = tmp_path / "m.cu"
    p.write_text("""
__global__ void mm(const float* A, const float* B, float* C, int n) {
  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.f;
  for (int k = 0; k < n; ++k) acc = fmaf(A[i * n + k], B[k * n + j], acc);
  C[i * n + j] = acc;
}
__global__ void mv(const float* A, const float* x, float* y, int n, int stride) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.f;
  for (int k = 0; k < n; ++k) acc += A[i * n + k] * x[k * stride];
  y[i] = acc;
}
__global__ void dot(const float* a, const float* b, float* out, int n) {
  float acc = 0.f;
  for (int k = threadIdx.x; k < n; k += blockDim.x) acc += a[k] * b[k];
  out[threadIdx.x] = acc;
}
""")
    adv = rule(profile_file(p), "matmul-without-tensor-cores")
    assert [(a.kernel, a.line, a.severity) for a in adv] == [("mm", 5, Severity.INFO)]
    assert "tf32" in adv[0].remedy and "register micro-tile" in adv[0].remedy


# --- register-spill, local-memory, low-occupancy on the b_ examples -----------------

def test_local_memory_and_spill_examples():
    r = report("b_spill.cu")
    local = rule(r, "local-memory")
    assert {a.kernel for a in local} == {"bucket_counts"}
    assert lines_with("b_spill.cu", "hist[keys[i] & 15] += 1;")[0] in {a.line for a in local}
    assert all(next(e.value for e in a.evidence if e.name == "stack frame") == 64 for a in local)
    spill = rule(r, "register-spill")
    assert [a.kernel for a in spill] == ["sort_segments"]
    ev = {e.name: e.value for e in spill[0].evidence}
    assert ev["spill stores"] > 0 and ev["registers"] == 32
    sk = r.source.kernel("sort_segments")
    assert sk.start_line <= spill[0].line <= sk.end_line


def test_local_array_is_one_finding_at_its_run_time_index():
    """One array in local memory was three near-identical warnings (its zeroing loop, its use, its
    flush) with the cause second: now one, on the index expression, the other lines related."""
    r = report("b_spill.cu")
    (a,) = rule(r, "local-memory")
    use = lines_with("b_spill.cu", "hist[keys[i] & 15] += 1;")[0]
    text = (EX / "b_spill.cu").read_text().split("\n")[use - 1]
    assert a.line == use and text[a.column - 1:a.end_column - 1] == "keys[i] & 15"
    assert "`hist`" in a.message and "`keys[i] & 15`" in a.message and "on line" not in a.message
    assert sorted(loc.line for loc in a.related) == sorted(
        lines_with("b_spill.cu", "hist[b] = 0") + lines_with("b_spill.cu", "atomicAdd(&counts[b], hist[b])"))


def test_spill_twin_silent():
    r = report("b_spill_fixed.cu")
    assert rule(r, "local-memory") == [] and rule(r, "register-spill") == []
    assert rule(r, "low-occupancy") == []


def test_low_occupancy_example():
    adv = rule(report("b_low_occupancy.cu"), "low-occupancy")
    assert len(adv) == 1
    a = adv[0]
    ln = lines_with("b_low_occupancy.cu", "__global__ void lut_activation")[0]
    assert a.line == ln and a.column == len("__global__ void ") + 1
    ev = {e.name: e.value for e in a.evidence}
    assert ev["theoretical occupancy"] == 18.8 or abs(ev["theoretical occupancy"] - 18.75) < 0.1
    assert ev["block size"] == 64 and "shared memory" in a.message


def test_low_occupancy_twin_silent():
    assert rule(report("b_low_occupancy_fixed.cu"), "low-occupancy") == []


@pytest.mark.parametrize("name", sorted(p.name for p in EX.glob("b_*.cu")))
def test_examples_have_header_and_twin(name):
    text = (EX / name).read_text()
    assert text.startswith(f"// {name} --")
    if not name.endswith("_fixed.cu"):
        assert (EX / name.replace(".cu", "_fixed.cu")).is_file()
        assert "Found by:" in text
        twin = (EX / name.replace(".cu", "_fixed.cu")).read_text()
        kernels = {k.name for k in parse_source(text).kernels}
        assert kernels == {k.name for k in parse_source(twin).kernels}


def test_macro_constants_computed_once_per_file(monkeypatch):
    """A file of many kernels: the #define table is built once, not once per kernel (was quadratic)."""
    from kernelpro.profilers.rules import unroll as unroll_mod

    text = "#define W 16\n#define PER (W / 4)\n" + "".join(
        f"__global__ void k{i}(float* x) {{ for (int j = 0; j < PER; ++j) x[j] += 1.0f; }}\n" for i in range(20))
    src = parse_source(text)
    walks = []
    real_walk = unroll_mod.walk
    monkeypatch.setattr(unroll_mod, "walk", lambda n: walks.append(n) or real_walk(n))
    envs = [unroll_mod.macro_constants(src) for _ in src.kernels]
    assert all(e["PER"] == 4 for e in envs) and sum(w is src.root for w in walks) == 1
    envs[0]["PER"] = 99  # callers get their own copy
    assert unroll_mod.macro_constants(src)["PER"] == 4


def test_tensor_cores_advice_fits_the_target_architecture(tmp_path):
    """On sm_75/sm_120 the advice names no sm_90a wgmma, no H200 numbers, and on sm_75 no TF32."""
    from kernelpro.profilers.compile import CompileOptions

    for arch in ("sm_75", "sm_120"):
        (a,) = rule(profile_file(EX / "b_naive_matmul.cu", CompileOptions(arch=arch)), "matmul-without-tensor-cores")
        assert "wgmma" not in a.remedy and "sm_90a" not in a.remedy and "H200" not in a.gain_note
        assert "wmma" in a.remedy and arch in a.remedy
    p = tmp_path / "mm.cu"
    p.write_text("__global__ void mm(const float* A, const float* B, float* C, int n) {\n"
                 "  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;\n"
                 "  float acc = 0.f;\n  for (int k = 0; k < n; ++k) acc = fmaf(A[i * n + k], B[k * n + j], acc);\n"
                 "  C[i * n + j] = acc;\n}\n")
    (a,) = rule(profile_file(p, CompileOptions(arch="sm_75")), "matmul-without-tensor-cores")
    assert "has no TF32" in a.remedy and "precision::tf32" not in a.remedy and "H200" not in a.gain_note
    (a,) = rule(profile_file(p, CompileOptions(arch="sm_90")), "matmul-without-tensor-cores")
    assert "precision::tf32" in a.remedy and "H200" in a.gain_note
