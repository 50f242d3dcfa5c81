"""Nsight Compute tools: CSV parsers, the ncu command, the dynamic rules, the recording script.

Synthetic fixtures (tests/fixtures/ncu/synthetic/) are hand-made in ncu's CSV layout. Real
ones recorded on an H200 by scripts/record_ncu_fixtures.sh go to tests/fixtures/ncu/h200/;
the tests over them are skipped only while that folder is absent.
"""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tarfile
import textwrap
from pathlib import Path

import pytest

from kernelpro.profilers.advice import Severity
from kernelpro.profilers.rules import dynamic_ncu as dn
from kernelpro.profilers.runtime.ncu import (
    DEFAULT_SECTIONS,
    Metric,
    NcuError,
    NcuResult,
    SassCounters,
    base_name,
    canonical_column,
    export_commands,
    kernel_matches,
    load_pages,
    ncu_command,
    parse_details,
    parse_number,
    parse_raw,
    parse_source,
    profile_kernel,
    verdict_name,
)
from kernelpro.profilers.source import parse_source as parse_cuda
from kernelpro.profilers.tools import Context, load_builtin, static_tools

ROOT = Path(__file__).resolve().parents[1]
FIX = ROOT / "tests" / "fixtures" / "ncu"
SYN = FIX / "synthetic"
H200 = FIX / "h200"
KERNELS_CU = FIX / "kernels.cu"
SCRIPT = ROOT / "scripts" / "record_ncu_fixtures.sh"
KERNELS = ("transpose_naive", "transpose_conflict", "divergent", "latency_chain", "copy_kernel")
NO_H200 = ("real H200 fixtures absent: run scripts/record_ncu_fixtures.sh on the GPU machine and unpack "
           "ncu_fixtures.tar.gz into tests/fixtures/ncu/h200")


def marker_line(rule: str, path: Path = KERNELS_CU) -> int:
    """The line of kernels.cu marked `// DEFECT: <rule>`."""
    hits = [i for i, t in enumerate(path.read_text().splitlines(), 1) if t.rstrip().endswith(f"DEFECT: {rule}")]
    assert len(hits) == 1, f"{path}: expected one DEFECT marker for {rule}, found {hits}"
    return hits[0]


def run_rule(fn, res: NcuResult, cu: Path = KERNELS_CU):
    ctx = Context(source=parse_cuda(cu.read_text(), str(cu)), artifact=None, measurement=res)
    return fn(ctx)


def syn(kernel: str) -> NcuResult:
    return load_pages(SYN / kernel, kernel=kernel)


# ---------------------------------------------------------------- cells and names

@pytest.mark.parametrize("cell, want", [
    ("1,234", 1234.0), ("1,234,567.5", 1234567.5), ("12.5%", 12.5), ("-3", -3.0), ("4.0e-05", 4e-05),
    ("n/a", None), ("", None), ("  ", None), ("-", None), ("Global", "Global"), ("0x10", "0x10"),
    ("1,2", "1,2"),  # not a thousands group: kept as text, not misread as 12
])
def test_parse_number(cell, want):
    assert parse_number(cell) == want


def test_base_name_and_kernel_matching():
    assert base_name("void ns::k<4, float>(float *, int)") == "k"
    assert base_name("transpose_naive(const float *, float *, int)") == "transpose_naive"
    assert kernel_matches("transpose_naive(const float *, float *, int)", "transpose_naive")
    assert not kernel_matches("transpose_naive_v2(float *)", "transpose_naive")
    assert kernel_matches("copy_kernel(const float *, float *, int)", "regex:^copy")
    assert kernel_matches("anything", None)


@pytest.mark.parametrize("header, key", [
    ("Warp Stall Sampling (All Samples)", "samples"),
    ("Warp Stall Sampling (All Cycles)", "samples"),
    ("Warp Stall Sampling (Not-issued Samples)", "samples_not_issued"),
    ("smsp__pcsamp_sample_count", "samples"),
    ("L2 Theoretical Sectors Global Excessive", "l2_sectors_global_excessive"),
    ("L2 Theoretical Sectors Global", "l2_sectors_global"),
    ("Memory L2 Theoretical Sectors Global", "l2_sectors_global"),
    ("Memory Ideal L2 Sectors Global", "l2_sectors_global_ideal"),
    ("memory_l2_theoretical_sectors_global_excessive", "l2_sectors_global_excessive"),
    ("L1 Wavefronts Shared Excessive", "l1_wavefronts_shared_excessive"),
    ("derived__memory_l1_wavefronts_shared_excessive", "l1_wavefronts_shared_excessive"),
    ("memory_l1_wavefronts_shared_ideal", "l1_wavefronts_shared_ideal"),
    ("L1 Conflicts Shared N-Way", "l1_conflicts_shared_nway"),
    ("L1 Tag Requests Global", "l1_requests_global"),
    ("stall_long_sb", "stall:long_scoreboard"),
    ("stall_mio", "stall:mio_throttle"),
    ("stall_no_inst", "stall:no_instruction"),
    ("stall_long_sb (Not Issued)", "stall_not_issued:long_scoreboard"),
    ("smsp__pcsamp_warps_issue_stalled_barrier", "stall:barrier"),
    ("smsp__pcsamp_warps_issue_stalled_no_instructions_not_issued", "stall_not_issued:no_instruction"),
    ("Instructions Executed", "inst_executed"),
    ("Thread Instructions Executed", "thread_inst_executed"),
    ("Predicated-On Thread Instructions Executed", "pred_on_thread_inst_executed"),
    ("Divergent Branches", "divergent_branches"),
    ("Some Column ncu Adds Later", "Some Column ncu Adds Later"),
])
def test_canonical_column(header, key):
    assert canonical_column(header) == key


# ---------------------------------------------------------------- raw and details pages

def test_raw_page_picks_the_requested_launch_with_units():
    text = (SYN / "transpose_naive" / "raw.csv").read_text()
    page = parse_raw(text, kernel="transpose_naive")  # the copy kernel comes first on this page
    assert page.launch_id == "1" and base_name(page.kernel) == "transpose_naive"
    assert page.metrics["gpu__time_duration.sum"] == Metric(1234560.0, "nsecond")
    assert page.metrics["memory_l2_theoretical_sectors_global_excessive"].value == 3670016.0
    assert page.info["Block Size"] == "(32, 32, 1)"
    assert parse_raw(text).launch_id == "0"  # no kernel named: the first launch
    assert parse_raw(text, launch="1").launch_id == "1"


def test_raw_page_errors_say_what():
    text = (SYN / "transpose_naive" / "raw.csv").read_text()
    with pytest.raises(NcuError, match=r"no launch of kernel 'divergent'.*0:copy_kernel, 1:transpose_naive"):
        parse_raw(text, kernel="divergent")
    with pytest.raises(NcuError, match="no header row"):
        parse_raw("==PROF== Connected\n==ERROR== The application returned an error code (11).\n")
    with pytest.raises(NcuError, match="no launch rows"):
        parse_raw('"ID","Kernel Name","x"\n"","","byte"\n')


def test_details_page_rules_and_metrics():
    metrics, rules = parse_details((SYN / "transpose_naive" / "details.csv").read_text(), "transpose_naive")
    assert [r.name for r in rules] == ["SOLBottleneck", "UncoalescedGlobalAccess", "AchievedOccupancy"]
    unc = rules[1]
    assert (unc.section, unc.type, unc.est_speedup, unc.speedup_type) == ("SourceCounters", "OPT", 41.81, "global")
    assert "3,670,016 excessive sectors" in unc.message  # the description stays verbatim
    assert rules[0].est_speedup is None
    assert metrics["Memory Workload Analysis/Memory Throughput"] == Metric(1234.56, "Gbyte/s")
    with pytest.raises(NcuError, match="no launch of kernel 'divergent'"):
        parse_details((SYN / "transpose_naive" / "details.csv").read_text(), "divergent")


# ---------------------------------------------------------------- source page

def test_source_page_lines_sass_and_files():
    lines, sass = parse_source((SYN / "transpose_naive" / "source.csv").read_text(), "transpose_naive")
    assert [(Path(x.file).name, x.line) for x in lines] == [("kernels.cu", n) for n in (13, 14, 15, 16, 17, 18)] + [
        ("math_functions.hpp", 17)]
    l17 = next(x for x in lines if x.line == 17 and x.file.endswith("kernels.cu"))
    assert l17.source.strip() == "float v = in[x * n + y];"
    assert l17.counters["l2_sectors_global_excessive"] == 3670016.0
    assert l17.counters["stall:long_scoreboard"] == 2610.0
    assert l17.counters["samples"] == 2900.0 and l17.counters["samples_not_issued"] == 2700.0
    assert l17.counters["inst_executed"] == 4096.0  # the first of the two "Instructions Executed" columns
    assert "Address Space" not in l17.counters  # empty on a line row
    # instruction rows belong to the line row above them
    ldg = next(s for s in sass if s.opcode == "LDG")
    assert (ldg.line, ldg.address, ldg.counters["Address Space"]) == (17, 0x7F3A1C000120, "Global")
    assert [s.line for s in sass] == [13, 17, 18]


def test_source_page_other_kernel_and_sass_only():
    text = (SYN / "sass_only" / "sass.csv").read_text()
    lines, sass = parse_source(text, "transpose_conflict")
    assert lines == [] and len(sass) == 1
    assert sass[0].opcode == "LDS" and sass[0].line is None  # "@!P0 LDS.U.32 ..." without predicate
    assert sass[0].counters["l1_wavefronts_shared_excessive"] == 4063232.0
    _, sass = parse_source(text, "copy_kernel")
    assert [s.opcode for s in sass] == ["LDG"]
    with pytest.raises(NcuError, match="no block for kernel 'divergent'"):
        parse_source(text, "divergent")


def test_source_page_quoting_ragged_rows_and_elision():
    text = textwrap.dedent('''\
        "File Path","/w/a.cu"
        "Function Name","k"
        "Line No","Source","Address","Source","Warp Stall Sampling (All Samples)","stall_wait","Brand New Counter"
        "3","  x = f(a, ""b"");","-","","1,200","1,000","7"
        "","","0x10","IMAD R1, R2, R3, RZ","600","500"
        "...","","",""
        "","","0x20","EXIT",""
        "9","  y = 1;","-",""
        ''')
    lines, sass = parse_source(text, "k")
    assert lines[0].source == '  x = f(a, "b");'
    assert lines[0].counters == {"samples": 1200.0, "stall:wait": 1000.0, "Brand New Counter": 7.0}
    assert [(s.address, s.line) for s in sass] == [(0x10, 3), (0x20, None)]  # after "..." no line
    assert lines[1].line == 9 and lines[1].counters == {}


def test_lines_fall_back_to_sass_rows():
    res = NcuResult(kernel="k", sass_lines=[
        SassCounters(0x10, "LDG.E R1, [R2]", 5, "/x/a.cu", {"l2_sectors_global": 8.0}),
        SassCounters(0x20, "LDG.E R3, [R4]", 5, "/x/a.cu", {"l2_sectors_global": 24.0, "Address Space": "Global"}),
        SassCounters(0x30, "EXIT", None, "", {"inst_executed": 1.0})])
    (ln,) = res.lines_for("/elsewhere/a.cu")
    assert (ln.line, ln.counters) == (5, {"l2_sectors_global": 32.0})
    assert res.lines_for("b.cu") == []


def test_line_rows_get_counters_only_their_instructions_carry():
    text = textwrap.dedent('''\
        "File Path","/w/a.cu"
        "Line No","Source","Address","Source","Instructions Executed","L2 Theoretical Sectors Global Excessive"
        "4","  v = a[i * 32];","-","","10",""
        "","","0x10","LDG.E R1, [R2]","8","224"
        "","","0x20","LDG.E R3, [R4]","2","56"
        ''')
    lines, sass = parse_source(text)
    res = NcuResult(source_lines=lines, sass_lines=sass)
    (ln,) = res.lines_for("a.cu")
    assert ln.counters == {"inst_executed": 10.0, "l2_sectors_global_excessive": 280.0}


def test_load_pages_errors(tmp_path):
    with pytest.raises(NcuError, match="raw.csv: missing"):
        load_pages(tmp_path)
    (tmp_path / "raw.csv").write_text("garbage, not ncu\n")
    with pytest.raises(NcuError, match="raw page: no header row"):
        load_pages(tmp_path)


# ---------------------------------------------------------------- the ncu command and a fake ncu

def test_ncu_command():
    cmd = ncu_command(["python", "-m", "kernelpro.profilers.runtime.runner", "--once", "job.json"], "vecadd",
                      launch_skip=2, out_prefix="/tmp/r", ncu="/opt/ncu")
    assert cmd[:4] == ["/opt/ncu", "--clock-control", "none", "--target-processes"]
    assert cmd[cmd.index("-k") + 1] == "regex:vecadd"
    assert cmd[cmd.index("--launch-skip") + 1] == "2" and cmd[cmd.index("-c") + 1] == "1"
    assert [cmd[i + 1] for i, c in enumerate(cmd) if c == "--section"] == list(DEFAULT_SECTIONS)
    assert cmd[cmd.index("--import-source") + 1] == "yes" and cmd[cmd.index("-o") + 1] == "/tmp/r"
    assert cmd[-5:] == ["python", "-m", "kernelpro.profilers.runtime.runner", "--once", "job.json"]
    assert ncu_command(["a"], "regex:^k$")[ncu_command(["a"], "regex:^k$").index("-k") + 1] == "regex:^k$"
    for bad in (([], "k"), (["a"], "")):
        with pytest.raises(ValueError):
            ncu_command(*bad)
    ex = export_commands("/tmp/r.ncu-rep")
    assert ex["raw.csv"][ex["raw.csv"].index("--page") + 1] == "raw" and "--print-units" in ex["raw.csv"]
    assert ex["source.csv"][ex["source.csv"].index("--print-source") + 1] == "cuda,sass"
    assert ex["details.csv"][ex["details.csv"].index("--print-details") + 1] == "all"


def _fake_ncu(tmp_path: Path, fail_profile: str = "") -> Path:
    """A stand-in for ncu: writes the report for -o and prints the synthetic pages for -i."""
    fake = tmp_path / "ncu"
    fake.write_text(textwrap.dedent(f"""\
        #!/usr/bin/env bash
        args="$*"
        if [[ "$args" == *--version* ]]; then echo "NVIDIA (R) Nsight Compute Command Line Profiler fake"; exit 0; fi
        if [[ "$args" == *" -i "* || "$1" == "-i" ]]; then
            page=""; ps=""
            while [ $# -gt 0 ]; do
                case "$1" in --page) page="$2"; shift;; --print-source) ps="$2"; shift;; esac; shift
            done
            d="{SYN}/transpose_naive"
            case "$page:$ps" in
                raw:*) cat "$d/raw.csv";;
                details:*) cat "$d/details.csv";;
                source:cuda,sass) cat "$d/source.csv";;
                *) echo "==ERROR== no such page in the fake" >&2; exit 1;;
            esac
            exit 0
        fi
        if [ -n "{fail_profile}" ] && [[ "$args" == *"{fail_profile}"* ]]; then
            echo "==ERROR== ERR_NVGPUCTRPERM - no permission to access NVIDIA GPU Performance Counters"; exit 1
        fi
        out=""; prev=""
        for a in "$@"; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; done
        echo "==PROF== Connected"; touch "$out.ncu-rep"; echo "==PROF== Report: $out.ncu-rep"
        """))
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    return fake


def test_profile_kernel_with_a_fake_ncu(tmp_path):
    fake = _fake_ncu(tmp_path)
    res = profile_kernel(["true"], "transpose_naive", tmp_path / "out", ncu=str(fake), verdict="memory-bound")
    assert base_name(res.kernel) == "transpose_naive" and res.report.endswith("report.ncu-rep")
    assert res.metric("launch__grid_size") == 4096.0 and len(res.rules) == 3
    assert any(x.line == 17 for x in res.source_lines)
    assert any("sass.csv" in n for n in res.notes)  # the fake has no sass-only page: noted, not fatal
    assert (tmp_path / "out" / "raw.csv").is_file() and not (tmp_path / "out" / "sass.csv").exists()
    assert res.verdict_name() == "memory-bound"


def test_profile_kernel_reports_ncu_failure(tmp_path):
    fake = _fake_ncu(tmp_path, fail_profile="transpose_naive")
    with pytest.raises(NcuError, match="exited 1: .*ERR_NVGPUCTRPERM"):
        profile_kernel(["true"], "transpose_naive", tmp_path / "out", ncu=str(fake))
    with pytest.raises(NcuError, match="cannot run"):
        profile_kernel(["true"], "k", tmp_path / "o2", ncu=str(tmp_path / "missing-ncu"))


# ---------------------------------------------------------------- rules on the synthetic profiles

def test_uncoalesced_global_on_its_line():
    (a,) = run_rule(dn.uncoalesced_global, syn("transpose_naive"))  # the header-file line is ignored
    line = marker_line("uncoalesced-global")
    text = KERNELS_CU.read_text().splitlines()[line - 1]
    assert (a.rule, a.severity, a.kernel, a.line) == ("uncoalesced-global", Severity.WARNING, "transpose_naive", line)
    assert text[a.column - 1:a.end_column - 1] == "in[x * n + y]"
    assert "3,670,016 of 4,194,304 sectors" in a.message and "32 sectors where 4 would do" in a.message
    assert a.gain == pytest.approx(1 / (1 - 0.4181), abs=0.01) and "UncoalescedGlobalAccess" in a.gain_note
    assert {e.source for e in a.evidence} == {"ncu"} and "threadIdx.x" in a.remedy


def test_shared_bank_conflict_on_its_line():
    (a,) = run_rule(dn.shared_bank_conflict, syn("transpose_conflict"))
    assert a.line == marker_line("shared-bank-conflict-measured")
    assert "32-way bank conflict" in a.message and "`tile[threadIdx.x][threadIdx.y]`" in a.message
    assert "tile[TILE][TILE + 1]" in a.remedy
    assert a.related and a.related[0].line == 25  # the __shared__ declaration


def test_divergence_on_its_line_with_the_branch():
    (a,) = run_rule(dn.warp_divergence, syn("divergent"))
    assert a.line == marker_line("warp-divergence") and "16.0 of 32 threads" in a.message
    assert [r.line for r in a.related] == [41]  # the `if (threadIdx.x % 2)` with divergent branches


def test_occupancy_and_stall_on_the_latency_kernel():
    (occ,) = run_rule(dn.achieved_occupancy, syn("latency_chain"))
    assert (occ.line, occ.severity) == (marker_line("achieved-occupancy"), Severity.WARNING)
    assert "1 block of 32 threads" in occ.message and "only 1 of 132 SMs" in occ.message
    assert "4,224 blocks" in occ.remedy  # 132 SMs x 32 blocks per SM
    stalls = run_rule(dn.warp_stall, syn("latency_chain"))
    assert stalls[0].line == marker_line("warp-stall") and "fixed-latency" in stalls[0].message
    assert all(s.severity == Severity.INFO for s in stalls)


def test_control_kernel_gets_no_warnings():
    res = syn("copy_kernel")
    for fn in (dn.uncoalesced_global, dn.shared_bank_conflict, dn.warp_divergence, dn.achieved_occupancy):
        assert run_rule(fn, res) == [], fn.__name__
    assert all(a.severity == Severity.INFO for a in run_rule(dn.warp_stall, res))


def _synthetic(**raw) -> NcuResult:
    return NcuResult(kernel="copy_kernel(const float *, float *, int)",
                     raw={k: Metric(float(v), "") for k, v in raw.items()})


def test_tail_effect_and_low_achieved_occupancy():
    res = _synthetic(launch__waves_per_multiprocessor=1.1, launch__grid_size=145, launch__block_size=256,
                     device__attribute_multiprocessor_count=132, launch__occupancy_limit_blocks=1)
    (a,) = run_rule(dn.achieved_occupancy, res)
    assert a.message.startswith("1.1 waves: the last wave runs 10% full") and "132 blocks per wave" in a.remedy
    res = _synthetic(**{"launch__waves_per_multiprocessor": 20, "sm__warps_active.avg.pct_of_peak_sustained_active": 30,
                        "sm__maximum_warps_per_active_cycle_pct": 75})
    (a,) = run_rule(dn.achieved_occupancy, res)
    assert "achieved occupancy 30.0% against a theoretical 75.0%" in a.message
    assert run_rule(dn.achieved_occupancy, _synthetic(launch__waves_per_multiprocessor=12.02)) == []


def test_kernel_level_divergence_without_line_counters():
    (a,) = run_rule(dn.warp_divergence, _synthetic(**{"smsp__thread_inst_executed_per_inst_executed.ratio": 20}))
    src = parse_cuda(KERNELS_CU.read_text(), str(KERNELS_CU))
    assert a.line == next(k.line for k in src.kernels if k.name == "copy_kernel") and "20.0 of 32" in a.message
    assert run_rule(dn.warp_divergence, _synthetic(**{"smsp__thread_inst_executed_per_inst_executed.ratio": 31.9})) == []


def test_rules_without_a_profile_say_nothing():
    for fn in (dn.uncoalesced_global, dn.shared_bank_conflict, dn.warp_stall, dn.achieved_occupancy,
               dn.warp_divergence):
        ctx = Context(source=parse_cuda(KERNELS_CU.read_text(), str(KERNELS_CU)), artifact=None, measurement=None)
        assert fn(ctx) == []


# ---------------------------------------------------------------- two-stage invocation and registry

def test_select_tools_by_verdict():
    assert dn.select_tools("memory-bound") == ["uncoalesced-global", "shared-bank-conflict-measured", "warp-stall"]
    assert dn.select_tools({"verdict": "compute-bound"}) == ["warp-stall", "warp-divergence", "achieved-occupancy"]

    class V:
        verdict = "latency-bound"
    assert dn.select_tools(V()) == ["achieved-occupancy", "warp-stall", "warp-divergence"]
    assert sorted(dn.select_tools(None)) == sorted(dn.ALL_TOOLS)
    assert verdict_name({"other": 1}) is None
    assert verdict_name({"verdict": "impossible", "bound": "memory-bound"}) == "memory-bound"


def test_dynamic_advice_runs_the_selected_tools():
    res = syn("transpose_naive")
    mem = dynamic_advice_rules(res, "memory-bound")
    assert "uncoalesced-global" in mem and "warp-divergence" not in mem and "achieved-occupancy" not in mem
    lat = dn.dynamic_advice(syn("latency_chain"), str(KERNELS_CU), {"verdict": "latency-bound"})
    assert lat[0].rule == "achieved-occupancy"  # the warning sorts before the info-level stalls
    res.verdict = "compute-bound"
    assert "uncoalesced-global" not in {a.rule for a in dn.dynamic_advice(res, KERNELS_CU)}
    with pytest.raises(ValueError, match="unknown dynamic tool"):
        dn.dynamic_advice(res, KERNELS_CU, tools=["spills"])


def dynamic_advice_rules(res, verdict):
    return {a.rule for a in dn.dynamic_advice(res, KERNELS_CU, verdict)}


def test_tools_are_registered_as_dynamic():
    reg = load_builtin()
    for name in dn.ALL_TOOLS:
        assert reg[name].kind == "dynamic" and reg[name].needs == ("gpu", "measurement")
        assert reg[name].to_openai()["function"]["name"] == name
    assert not set(dn.ALL_TOOLS) & {t.name for t in static_tools()}


def test_docs_cover_each_rule():
    doc = (ROOT / "docs" / "rules.md").read_text()
    for name in dn.ALL_TOOLS:
        assert f"## {name}\n" in doc


# ---------------------------------------------------------------- the recording script

@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
def test_record_script_continues_past_a_failure_and_packs_one_tarball(tmp_path):
    fake = _fake_ncu(tmp_path, fail_profile=" divergent")
    out = tmp_path / "OUT"
    env = dict(os.environ, OUT=str(out), NCU=str(fake), KERNELS="transpose_naive divergent copy_kernel")
    p = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 1, p.stdout + p.stderr
    assert "FAILED steps:" in p.stderr and "divergent:profile" in p.stderr
    assert "Nsight Compute Command Line Profiler fake" in p.stdout
    with tarfile.open(out / "ncu_fixtures.tar.gz") as tar:
        names = {n.lstrip("./") for n in tar.getnames()}
    assert {"transpose_naive/raw.csv", "transpose_naive/source.csv", "copy_kernel/details.csv", "kernels.cu",
            "versions.txt", "divergent/profile.log"} <= names
    assert "divergent/raw.csv" not in names
    # the fake has no sass/cuda-only pages: those exports are reported, the rest kept
    assert "transpose_naive:sass.csv" in p.stderr


# ---------------------------------------------------------------- real H200 fixtures

def _h200(kernel: str) -> tuple[NcuResult, Path]:
    if not H200.is_dir():
        pytest.skip(NO_H200)
    d = H200 / kernel
    assert (d / "raw.csv").is_file(), f"{d}/raw.csv missing: the recording failed for {kernel} (see profile.log)"
    cu = H200 / "kernels.cu" if (H200 / "kernels.cu").is_file() else KERNELS_CU
    return load_pages(d, kernel=kernel), cu


@pytest.mark.parametrize("kernel", KERNELS)
def test_h200_pages_parse(kernel):
    res, cu = _h200(kernel)
    assert base_name(res.kernel) == kernel
    assert res.metric("launch__grid_size") and res.metric("gpu__time_duration.sum")
    lines = res.lines_for(str(cu))
    assert lines, f"no source lines of kernels.cu in {kernel}/source.csv (built without -lineinfo?)"
    assert any(ln.num("inst_executed") > 0 for ln in lines)
    if (H200 / kernel / "cuda.csv").is_file():
        cuda_lines, _ = parse_source((H200 / kernel / "cuda.csv").read_text(), kernel)
        assert {ln.line for ln in cuda_lines} & {ln.line for ln in lines}


@pytest.mark.parametrize("kernel, fn, rule", [
    ("transpose_naive", dn.uncoalesced_global, "uncoalesced-global"),
    ("transpose_conflict", dn.shared_bank_conflict, "shared-bank-conflict-measured"),
    ("divergent", dn.warp_divergence, "warp-divergence"),
    ("latency_chain", dn.achieved_occupancy, "achieved-occupancy"),
    ("latency_chain", dn.warp_stall, "warp-stall"),
])
def test_h200_rule_fires_on_the_defect_line(kernel, fn, rule):
    res, cu = _h200(kernel)
    advice = run_rule(fn, res, cu)
    assert advice, f"{rule} did not fire on the recorded {kernel}"
    assert advice[0].line == marker_line(rule, cu), [a.text() for a in advice]


def test_h200_control_gets_no_warnings():
    res, cu = _h200("copy_kernel")
    for fn in (dn.uncoalesced_global, dn.shared_bank_conflict, dn.warp_divergence, dn.achieved_occupancy):
        assert run_rule(fn, res, cu) == [], fn.__name__


@pytest.mark.parametrize("kernel, rule, busy", [
    ("transpose_naive", "uncoalesced-global", "memory pipes"),
    ("transpose_conflict", "shared-bank-conflict-measured", "memory pipes"),
    ("divergent", "warp-divergence", "SM pipes"),
    ("latency_chain", "achieved-occupancy", None),
])
def test_h200_two_stage_selection_from_a_latency_bound_roofline(kernel, rule, busy):
    """The roofline (useful bytes only) called all of these latency-bound on the H200; the
    speed of light of the recorded pages decides which tools run, and the defect's rule does."""
    res, cu = _h200(kernel)
    notes = []
    advice = dn.dynamic_advice(res, cu, verdict="latency-bound", notes=notes)
    assert any(a.rule == rule and a.line == marker_line(rule, cu) for a in advice), [a.text() for a in advice]
    if busy:
        assert any(busy in n for n in notes), notes
    else:
        assert not notes
