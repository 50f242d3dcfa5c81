"""The second pass's server pieces on their own: line maps, messages, Markdown, compile_commands.json,
SASS document, per-line facts, Nsight Compute line counters."""
from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from lsprotocol import types

from kernelpro.lsp_server import convert
from kernelpro.lsp_server.hover import code, md
from kernelpro.lsp_server.linemap import LineMap
from kernelpro.lsp_server.project import ProjectError, parse_command, project_flags
from kernelpro.lsp_server.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
EX = ROOT / "examples"


def test_line_map_moves_unchanged_lines_and_drops_changed_ones():
    old = "a\nb\nc\nd\n"
    new = "x\na\nb\nC\nd\n"
    m = LineMap(old, new)
    assert [m.line(i) for i in range(4)] == [1, 2, None, 4]
    d = types.Diagnostic(range=types.Range(start=types.Position(1, 0), end=types.Position(1, 1)), message="m",
                         data={"fix": {"edits": [{"line": 2, "column": 1, "end_line": 2, "end_column": 2, "new_text": "y"}]}},
                         related_information=[types.DiagnosticRelatedInformation(
                             types.Location("u", types.Range(start=types.Position(2, 0), end=types.Position(2, 1))), "gone")])
    moved = m.diagnostic(d, "u")
    assert moved.range.start.line == 2 and moved.data["fix"]["edits"][0]["line"] == 3
    assert moved.related_information is None  # its line changed
    on_changed = types.Diagnostic(range=types.Range(start=types.Position(2, 0), end=types.Position(2, 1)), message="c")
    assert m.diagnostic(on_changed, "u") is None
    assert LineMap(old, old).diagnostic(on_changed, "u") is on_changed


def _diag(line, start, end, fix_col=None):
    data = {"fix": {"edits": [{"line": line + 1, "column": fix_col, "end_line": line + 1, "end_column": fix_col,
                               "new_text": "f"}]}} if fix_col else None
    return types.Diagnostic(range=types.Range(start=types.Position(line, start), end=types.Position(line, end)),
                            message="m", data=data)


def test_line_map_on_a_line_edited_in_place_drops_only_what_the_edit_touched():
    old = "int a;\n  y = x * 2.0 + z * 0.7;\nint b;"
    new = "int a;\n  y = x * 2.0f + z * 0.7;\nint b;"  # the quick fix of 2.0
    m = LineMap(old, new)
    first, second = _diag(1, 10, 13, 14), _diag(1, 20, 23, 24)
    assert m.diagnostic(first, "u") is None  # its literal was edited (at its end: touched)
    moved = m.diagnostic(second, "u")
    assert (moved.range.start.character, moved.range.end.character) == (21, 24)
    assert moved.data["fix"]["edits"][0]["column"] == 25  # its fix still lands after 0.7
    assert m.line(1) is None  # the line's SASS facts and hovers still count it as changed
    before = _diag(1, 2, 3)  # `y`, before the edit
    assert m.diagnostic(before, "u").range == before.range
    # a range across lines: an edit inside it (on its first line) touches it; one before it does not
    span = types.Diagnostic(range=types.Range(start=types.Position(1, 6), end=types.Position(2, 3)), message="s")
    assert m.diagnostic(span, "u") is None
    late = types.Diagnostic(range=types.Range(start=types.Position(1, 20), end=types.Position(2, 3)), message="s")
    assert m.diagnostic(late, "u").range == types.Range(start=types.Position(1, 21), end=types.Position(2, 3))
    # UTF-16 columns: a non-BMP character before the edit counts two units
    wide = LineMap("s = '😀'; v = 2.0 * 0.7;", "s = '😀'; v = 2.0f * 0.7;")
    d = _diag(0, 20, 23)  # 0.7 in UTF-16 units
    assert wide.diagnostic(d, "u").range.start.character == 21


@pytest.mark.parametrize("message, line, short", [
    ("the literal 0.5 on line 13 is a double: it promotes `0.5 * v` to FP64", 13, "the literal 0.5 is a double"),
    ("the loop on line 17 is a matrix multiply (acc += A[..k..] * B[..k..], half inputs) computed on the FMA "
     "pipe (5 FFMA on line 18) and matmul has no tensor-core instruction (HMMA/HGMMA)", 18,
     "the loop on line 17 is a matrix multiply computed on the FMA pipe and matmul has no tensor-core instruction"),
    ("lut_activation: 18.75% occupancy (12 of 64 warps), limited by shared memory: 32 KB/block allows 6", 11,
     "lut_activation: 18.75% occupancy (12 of 64 warps), limited by shared memory"),
    ("a `x ? a : b; c` span: and the rest", 1, "a `x ? a : b; c` span: and the rest"),  # too short a head
])
def test_short_message(message, line, short):
    assert convert.short_message(message, line) == short
    assert len(convert.short_message(message, line)) <= 120


def test_range_ends_before_a_trailing_comment():
    line = '  v[k] = data[k];  // segment-major: "coalesced"'
    assert convert.code_end(line) == len("  v[k] = data[k];") + 1
    assert convert.code_end('  s = "// not a comment";') == len('  s = "// not a comment";') + 1
    r = convert.line_range([line], 1)
    assert (r.start.character, r.end.character) == (2, len("  v[k] = data[k];"))


def test_rule_links_point_at_the_heading_line():
    for rule in ("fp64-in-float-kernel", "local-memory", "warp-stall"):
        href = convert.rule_link(rule)
        path, n = href.split("#L")
        assert Path(path.removeprefix("file://")).read_text().split("\n")[int(n) - 1].endswith(f" {rule}")


def test_markdown_escaping_keeps_code_spans():
    assert md("use __launch_bounds__ and a*b*c") == "use \\_\\_launch\\_bounds\\_\\_ and a\\*b\\*c"
    assert md("declare `const float* __restrict__` [here]") == "declare `const float* __restrict__` \\[here\\]"
    assert code("a`b") == "``a`b``" and code("k") == "`k`"


# ---------------------------------------------------------------- compile_commands.json

CMAKE_LINE = ("/usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler -DUSE_FAST=1 -DTILE=32 "
              "-I{root}/include -isystem /opt/dep/include -O3 -DNDEBUG -std=c++17 "
              "--generate-code=arch=compute_80,code=[compute_80,sm_80] "
              "--generate-code=arch=compute_90,code=[compute_90,sm_90] --expt-relaxed-constexpr "
              "-Xcompiler=-fPIC -MD -MT CMakeFiles/k.dir/src/k.cu.o -MF CMakeFiles/k.dir/src/k.cu.o.d "
              "-x cu -c {root}/src/k.cu -o CMakeFiles/k.dir/src/k.cu.o")


def cmake_project(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "src" / "k.cu").write_text("__global__ void k() {}\n")
    (root / "src" / "other.cu").write_text("__global__ void o() {}\n")
    (root / "build").mkdir()
    db = root / "build" / "compile_commands.json"
    db.write_text(json.dumps([{"directory": str(root / "build"), "command": CMAKE_LINE.format(root=root),
                               "file": str(root / "src" / "k.cu"), "output": "CMakeFiles/k.dir/src/k.cu.o"}]))
    return db


def test_compile_commands_found_like_clangd(tmp_path):
    db = cmake_project(tmp_path)
    ws = (str(tmp_path),)  # the workspace folder: the search goes up to it, never above
    assert project_flags(str(tmp_path / "src" / "k.cu")) is None  # no workspace: the file's folder only
    assert project_flags(str(tmp_path / "src" / "k.cu"), roots=(str(tmp_path / "src"),)) is None
    f = project_flags(str(tmp_path / "src" / "k.cu"), roots=ws)
    assert f.database == str(db) and f.entry == str(tmp_path / "src" / "k.cu")
    assert f.arch == "sm_90"
    assert f.include_paths == (str(tmp_path / "include"), "/opt/dep/include")
    assert f.defines == ("USE_FAST=1", "TILE=32", "NDEBUG")
    assert f.extra_flags == ("-std=c++17", "--expt-relaxed-constexpr")
    # a file without an entry borrows the nearest one's flags
    assert project_flags(str(tmp_path / "src" / "other.cu"), roots=ws).defines == f.defines
    # the settings go on top; an explicit arch wins
    opts = Settings.from_json({"defines": ["TILE=64"], "arch": "sm_80"}).compile_options(str(tmp_path / "src" / "k.cu"), roots=ws)
    assert opts.arch == "sm_80" and opts.defines[-1] == "TILE=64" and "USE_FAST=1" in opts.defines
    assert Settings.from_json({}).compile_options(str(tmp_path / "src" / "k.cu"), roots=ws).arch == "sm_90"
    # an untrusted workspace's database is not read
    assert "USE_FAST=1" not in Settings.from_json({}).compile_options(str(tmp_path / "src" / "k.cu"), trusted=False, roots=ws).defines
    assert project_flags(str(tmp_path.parent / "elsewhere.cu")) is None or tmp_path.parent == Path("/")


def test_compile_commands_arguments_form_and_setting(tmp_path):
    root = tmp_path / "proj"
    (root / "k").mkdir(parents=True)
    db = tmp_path / "out" / "compile_commands.json"
    db.parent.mkdir()
    argv = ["nvcc", "-I", "inc", "-D", "N=4", "-arch=sm_86", "-c", "k/a.cu", "-o", "a.o", "--use_fast_math"]
    db.write_text(json.dumps([{"directory": str(root), "arguments": argv, "file": "k/a.cu"}]))
    assert project_flags(str(root / "k" / "a.cu")) is None  # not where clangd looks
    f = project_flags(str(root / "k" / "a.cu"), str(db.parent))
    assert (f.arch, f.include_paths, f.defines, f.extra_flags) == ("sm_86", (str(root / "inc"),), ("N=4",), ("--use_fast_math",))
    with pytest.raises(ProjectError, match="no compile_commands.json"):
        project_flags(str(root / "k" / "a.cu"), str(tmp_path / "nowhere"))
    db.write_text("{not json")
    with pytest.raises(ProjectError, match="not a readable compile_commands.json"):
        project_flags(str(root / "k" / "a.cu"), str(db))


def test_parse_command_keeps_only_what_changes_the_code():
    arch, incs, defs, extra = parse_command(shlex.split(
        "nvcc -ccbin g++ -Xptxas -v -Iinc --include-path=/x -DA -U B -G -g -lineinfo -maxrregcount 64 "
        "-gencode arch=compute_75,code=sm_75 -include pre.h -o out.o k.cu"), "/p")
    assert arch == "sm_75" and incs == ["/p/inc", "/x"] and defs == ["A"]
    assert extra == ["-maxrregcount", "64", "-include", "/p/pre.h"]


# ---------------------------------------------------------------- SASS document and facts

@pytest.fixture(scope="module")
def spill_report():
    from kernelpro.profilers.profile import profile_file

    return profile_file(EX / "b_spill.cu")


def test_sass_document_groups_by_source_line(spill_report):
    from kernelpro.lsp_server.sass_view import sass_document

    text = (EX / "b_spill.cu").read_text()
    doc = sass_document(spill_report, str(EX / "b_spill.cu"), "bucket_counts")
    out = doc["text"].split("\n")
    assert doc["kernels"] == ["bucket_counts"]
    use = next(i for i, t in enumerate(text.split("\n"), 1) if "hist[keys[i] & 15]" in t)
    blocks = [b for b in doc["blocks"] if b["line"] == use]
    assert blocks, doc["blocks"]
    for b in doc["blocks"]:
        head = out[b["start"]]
        if b["line"] is not None:
            assert head.startswith(f"// b_spill.cu:{b['line']}  ")
            assert head.endswith(text.split("\n")[b["line"] - 1].strip())
        assert all(out[i].strip().startswith("/*") and out[i].endswith(";") for i in range(b["start"] + 1, b["end"] + 1))
    sass = "\n".join("\n".join(out[b["start"]:b["end"] + 1]) for b in blocks)
    assert "LDL" in sass or "STL" in sass  # the run-time index is where the local memory traffic is
    # no trailing NOP padding (issue 29, item 11): the listing ends at the kernel's last instruction,
    # and the header counts what is listed
    (build,) = [b for b in spill_report.artifact.kernels if b.name == "bucket_counts"]
    assert build.sass[-1].base == "NOP"  # nvdisasm printed the padding
    listed = [t for t in out if t.strip().startswith("/*")]
    assert " NOP " not in listed[-1] and listed[-1].split()[1] in ("BRA", "EXIT")
    assert f": {len(listed)} instructions," in next(t for t in out if t.startswith("// ===="))
    # one line inserted above: the blocks name the moved lines
    moved = sass_document(spill_report, str(EX / "b_spill.cu"), "bucket_counts", LineMap(text, "// new\n" + text))
    assert [b["line"] for b in moved["blocks"]] == [b["line"] + 1 if b["line"] else None for b in doc["blocks"]]


def test_line_facts_count_local_fp64_and_access_widths(spill_report):
    from kernelpro.lsp_server.hints import line_facts
    from kernelpro.profilers.profile import profile_file

    text = (EX / "b_spill.cu").read_text().split("\n")
    facts = line_facts(spill_report)
    use = next(i for i, t in enumerate(text, 1) if "hist[keys[i] & 15]" in t)
    assert "LDL/STL" in facts[use] and "LDG.32" in facts[use]
    fp = profile_file(EX / "a_fp64_literal.cu")
    ftext = (EX / "a_fp64_literal.cu").read_text().split("\n")
    ffacts = line_facts(fp)
    lit = next(i for i, t in enumerate(ftext, 1) if "float inner" in t and "0.7978845608" in t)
    assert "FP64" in ffacts[lit]
    assert not any("FP64" in v for v in line_facts(profile_file(EX / "a_fp64_literal_fixed.cu")).values())


def test_ncu_line_counters_on_a_recorded_h200_profile():
    from kernelpro.profilers.runtime.measure import line_counters
    from kernelpro.profilers.runtime.ncu import load_pages

    h200 = ROOT / "tests" / "fixtures" / "ncu" / "h200"
    res = load_pages(h200 / "transpose_naive", kernel="transpose_naive")
    rows = line_counters(res, str(h200 / "kernels.cu"))
    assert rows and all(isinstance(r["line"], int) and r["text"] for r in rows)
    defect = next(i for i, t in enumerate((h200 / "kernels.cu").read_text().split("\n"), 1)
                  if t.rstrip().endswith("DEFECT: uncoalesced-global"))
    row = next(r for r in rows if r["line"] == defect)
    assert "excess sectors" in row["text"] and "of stalls" in row["text"]
