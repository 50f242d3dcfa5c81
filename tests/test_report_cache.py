"""The report cache of `kernelpro profile`: a hit prints what a miss prints; every input change misses."""
import json
import os
import re
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from kernelpro.profilers import report_cache
from kernelpro.profilers.cachekey import CompileOptions
from kernelpro.profilers.toolchain import Toolchain, discover

KERNEL = textwrap.dedent("""\
    #include "scale.cuh"
    __global__ void scale(float* out, const float* in, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) out[i] = in[i] * SCALE;
    }
    __global__ void heavy(float* out, const int* idx, int n) {
        float acc[32];
        for (int j = 0; j < 32; ++j) acc[j] = 0.f;
        for (int j = 0; j < n; ++j) acc[idx[j] & 31] += out[j];
        out[threadIdx.x] = acc[idx[threadIdx.x] & 31] * 2.0;
    }
    void launch(float* o, const float* i, int n) { scale<<<(n + 127) / 128, 128>>>(o, i, n); }
    """)
SPEC = ('kernel = "scale"\n[sizes]\ns = { n = 1024 }\n'
        '[[args]]\nname = "out"\ndtype = "float32"\nshape = ["n"]\noutput = true\n'
        '[[args]]\nname = "in"\ndtype = "float32"\nshape = ["n"]\n'
        '[[args]]\nname = "n"\nvalue = "n"\n'
        '[launch]\ngrid = ["cdiv(n, 512)"]\nblock = [BLOCK]\n')


@pytest.fixture
def cache(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("KERNELPRO_CACHE_DIR", str(d))
    return d


@pytest.fixture
def kfile(tmp_path, cache):
    (tmp_path / "scale.cuh").write_text("#define SCALE 3.0f\n")
    p = tmp_path / "scale.cu"
    p.write_text(KERNEL)
    return p


def cli(*args):
    env = {**os.environ}
    return subprocess.run([sys.executable, "-m", "kernelpro.profilers.cli", "profile", *map(str, args)],
                          capture_output=True, text=True, timeout=120, env=env)


def entries(cache: Path) -> list[Path]:
    return sorted(cache.glob("compile/*/report-*.json"))


def no_duration(out: str) -> str:
    return re.sub(r"^(\S+  \S+  )\d+ ms", r"\1N ms", out)


def lookup(path, options=CompileOptions(), tc=None, kernel=None, block=None):
    return report_cache.lookup(path, options, tc or discover(), kernel, block)[0]


def test_a_hit_prints_what_a_miss_prints_json_and_text(kfile, cache):
    first = cli(kfile, "--json")  # compiles, then stores the report
    assert first.returncode == 0, first.stderr
    assert len(entries(cache)) == 1
    hit = cli(kfile, "--json")
    for e in entries(cache):
        e.unlink()
    miss = cli(kfile, "--json")  # compile cache hit, report cache miss: the full profile
    a, b = json.loads(hit.stdout), json.loads(miss.stdout)
    assert a.pop("duration_s") >= 0 and b.pop("duration_s") >= 0
    assert a == b and a["cache_hit"] and a["advice"] and hit.returncode == miss.returncode == 0
    text_hit = cli(kfile)
    for e in entries(cache):
        e.unlink()
    text_miss = cli(kfile)
    assert "(cached)" in text_hit.stdout.splitlines()[0]
    assert no_duration(text_hit.stdout) == no_duration(text_miss.stdout) and "local-memory" in text_hit.stdout
    assert text_hit.returncode == text_miss.returncode == 0


def test_compile_errors_and_the_empty_file_note_come_back_the_same(tmp_path, cache):
    bad = tmp_path / "bad.cu"
    bad.write_text("__global__ void k(float* x) { x[0] = y; }\n#warning careful\n__global__ void j() { z = 1; }\n")
    empty = tmp_path / "empty.cu"
    empty.write_text("")
    for f in (bad, empty):
        miss, hit = cli(f), cli(f)
        assert hit.returncode == miss.returncode == (1 if f is bad else 3)  # 3: nothing to analyse
        assert no_duration(hit.stdout) == no_duration(miss.stdout.replace("ms\n", "ms (cached)\n", 1))
    assert "empty" in hit.stdout and len(entries(cache)) == 2


def test_a_hit_runs_no_parser_and_json_loads_no_rich(kfile):
    assert cli(kfile).returncode == 0
    probe = ("import sys; from kernelpro.profilers.cli import main; rc = main(sys.argv[1:]); "
             "bad = [m for m in ('rich', 'tree_sitter', 'kernelpro.profilers.profile', 'kernelpro.profilers.compile', "
             "'kernelpro.profilers.rules') "
             "if m in sys.modules]; print('LOADED', bad, file=sys.stderr); sys.exit(rc)")
    for extra in ((), ("--json",)):
        r = subprocess.run([sys.executable, "-c", probe, "profile", str(kfile), *extra], capture_output=True, text=True,
                           timeout=120)
        assert r.returncode == 0, r.stderr
        loaded = r.stderr.strip().splitlines()[-1]
        assert loaded == ("LOADED ['rich']" if not extra else "LOADED []"), loaded


def test_every_input_change_misses(kfile, cache, monkeypatch):
    assert cli(kfile, "--json").returncode == 0
    assert lookup(kfile) is not None

    def misses(change, undo):
        change()
        assert lookup(kfile) is None
        undo()
        assert lookup(kfile) is not None  # the miss was this change's doing

    header = kfile.parent / "scale.cuh"
    misses(lambda: kfile.write_text(KERNEL + "\n"), lambda: kfile.write_text(KERNEL))
    misses(lambda: header.write_text("#define SCALE 4.0f\n"), lambda: header.write_text("#define SCALE 3.0f\n"))
    spec = kfile.with_name("scale.kernelpro.toml")
    misses(lambda: spec.write_text(SPEC.replace("BLOCK", "512")), spec.unlink)
    code = report_cache.code_version()
    misses(lambda: monkeypatch.setattr(report_cache, "code_version", lambda: code + "x"),
           lambda: monkeypatch.setattr(report_cache, "code_version", lambda: code))

    for opts in (CompileOptions(arch="sm_80"), CompileOptions(defines=("X=1",)), CompileOptions(extra_flags=("-O2",)),
                 CompileOptions(include_paths=(str(kfile.parent),))):
        assert lookup(kfile, opts) is None
    tc = discover()
    other = Toolchain({**tc.tools, "nvcc": replace(tc.tools["nvcc"], version="0.0")}, tc.missing)
    assert lookup(kfile, tc=other) is None
    assert lookup(kfile, kernel="heavy") is None and lookup(kfile, block=128) is None


def test_a_changed_launch_spec_misses_and_gives_its_block(kfile):
    spec = kfile.with_name("scale.kernelpro.toml")
    blocks = []
    for b in ("512", "64", "512"):
        spec.write_text(SPEC.replace("BLOCK", b))
        d = json.loads(cli(kfile, "--json").stdout)
        blocks.append(next((k["block"], k["block_origin"]) for k in d["kernels"] if k["name"] == "scale"))
    assert blocks == [(512, "launch spec"), (64, "launch spec"), (512, "launch spec")]
    spec.write_text('kernel = "scale"\n[sizes]\n')  # unusable: the launch site's 128, with a note
    d = json.loads(cli(kfile, "--json").stdout)
    assert {k["name"]: k["block"] for k in d["kernels"]}["scale"] == 128
    assert any("not used" in n for n in d["notes"])


def test_code_version_follows_the_rule_files(tmp_path, monkeypatch):
    pkg = Path(report_cache.__file__).parent
    copy = tmp_path / "pkg"
    for f in pkg.rglob("*.py"):
        (copy / f.relative_to(pkg)).parent.mkdir(parents=True, exist_ok=True)
        (copy / f.relative_to(pkg)).write_bytes(f.read_bytes())
    monkeypatch.setattr(report_cache, "_PACKAGE", copy)
    v1 = report_cache.code_version()
    assert report_cache.code_version() == v1
    rule = copy / "rules" / "spills.py"
    rule.write_text(rule.read_text() + "\n# edited\n")
    v2 = report_cache.code_version()
    (copy / "rules" / "a_new_rule.py").write_text("X = 1\n")
    assert len({v1, v2, report_cache.code_version()}) == 3


def test_store_refuses_a_report_whose_inputs_moved(kfile):
    from kernelpro.profilers.profile import profile_file

    _, slot = report_cache.lookup(kfile, CompileOptions(), discover(), None, None)
    kfile.write_text(KERNEL + "// edited while profiling\n")
    rep = profile_file(kfile)
    assert not report_cache.store(slot, rep)
    _, slot = report_cache.lookup(kfile, CompileOptions(), discover(), None, None)
    assert report_cache.store(slot, profile_file(kfile)) and lookup(kfile) is not None


def test_a_broken_entry_is_a_miss_and_is_replaced(kfile, cache):
    assert cli(kfile, "--json").returncode == 0
    (e,) = entries(cache)
    for broken in ('{"format": 1, "report": {"file": ', "[]", '{"format": 1, "report": {"file": 3}}'):
        e.write_text(broken)
        assert lookup(kfile) is None
        r = cli(kfile, "--json")
        assert r.returncode == 0 and json.loads(r.stdout)["kernels"] and lookup(kfile) is not None


def test_no_cache_skips_the_report_cache_and_a_hit_never_profiles(kfile, cache, monkeypatch, capsys):
    from kernelpro.profilers import cli as kcli

    assert kcli.main(["profile", str(kfile), "--json"]) == 0
    capsys.readouterr()

    def boom(*a, **k):
        raise AssertionError("report cache used")

    monkeypatch.setattr(report_cache, "lookup", boom)
    assert kcli.main(["profile", str(kfile), "--json", "--no-cache"]) == 0
    assert json.loads(capsys.readouterr().out)["cache_hit"] is False
    monkeypatch.undo()
    monkeypatch.setenv("KERNELPRO_CACHE_DIR", str(cache))
    import kernelpro.profilers.profile as prof

    monkeypatch.setattr(prof, "profile_file", boom)  # a hit never profiles
    assert kcli.main(["profile", str(kfile), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["cache_hit"] is True
