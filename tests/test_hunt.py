"""The source-code hunter: symbol extraction, terms, the FTS5 index and its cache, `kernelpro
hunt`, the LLM coder's tool and the advice that links to a building block."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

from session_lock import session_lock

from kernelpro.profilers import cli
from kernelpro.profilers.advice import Advice, Link, Severity
from kernelpro.profilers.hunt import api, corpus as corpus_mod
from kernelpro.profilers.hunt.corpus import Corpus, Missing, Source, include_for
from kernelpro.profilers.hunt.extract import extract
from kernelpro.profilers.hunt.index import HuntError, Index, build, index_path
from kernelpro.profilers.hunt.terms import query_groups, word_terms

ROOT = Path(__file__).resolve().parents[1]

HEADER = textwrap.dedent("""\
    /* Copyright (c) 2025 Somebody. All rights reserved. */

    //! @file
    //! Reductions across a warp for tests.
    #pragma once
    CUB_NAMESPACE_BEGIN

    //! Reduces values across a warp with shuffles.
    template <typename T, int LOGICAL_WARP_THREADS = 32>
    class WarpReduce
    {
    public:
      //! Computes a warp-wide sum in the calling warp.
      _CCCL_DEVICE _CCCL_FORCEINLINE T Sum(T input)
      {
        return __shfl_xor_sync(0xffffffff, input, 1) + input;
      }

      /// Internal helper.
      _CCCL_DEVICE T _private_helper(T x) { return x; }
    };

    CUB_NAMESPACE_END

    namespace cute {
    namespace detail { struct Hidden { int x; }; }

    /**
     * Copy from global to shared memory with TMA.
     */
    struct SM90_TMA_LOAD
    {
      CUTE_HOST_DEVICE static void
      copy(void const* desc, void* smem) {}
    };

    // plain comment for an alias
    using TmaLoad = SM90_TMA_LOAD;
    } // namespace cute

    #define KP_SQUARE(x) ((x) * (x))
    __global__ void scale_kernel(float* out) {}
    """)


def _names(syms):
    return {s.name: s for s in syms}


def test_extract_symbols_docs_namespaces_through_macros():
    syms = extract(HEADER.encode())
    by = _names(syms)
    assert syms[0].kind == "file" and syms[0].doc == "Reductions across a warp for tests."
    wr = by["cub::WarpReduce"]
    assert wr.kind == "class" and wr.doc == "Reduces values across a warp with shuffles." and wr.start == 9
    s = by["cub::WarpReduce::Sum"]
    assert s.kind == "function" and s.doc == "Computes a warp-wide sum in the calling warp." and s.start == 14
    assert "T Sum(T input)" in s.signature and "_CCCL" not in s.signature  # the qualifier macros are blanked
    assert "__shfl_xor_sync" in s.idents
    tma = by["cute::SM90_TMA_LOAD"]
    assert tma.kind == "struct" and tma.doc == "Copy from global to shared memory with TMA."
    assert by["cute::SM90_TMA_LOAD::copy"].kind == "function"
    assert by["cute::detail::Hidden"].kind == "struct"
    assert by["cute::TmaLoad"].kind == "alias" and by["cute::TmaLoad"].doc == "plain comment for an alias"
    assert by["KP_SQUARE"].kind == "macro"
    assert by["scale_kernel"].kind == "kernel"
    assert "Copyright" not in " ".join(s.doc for s in syms)


def test_terms_split_identifiers_and_queries():
    assert word_terms("BlockRadixSort") == ("block", "radix", "sort", "blockradix", "radixsort", "blockradixsort")
    assert {"sm90", "tma", "load"} <= set(word_terms("SM90_TMA_LOAD"))
    assert {"f32", "bf16"} <= set(word_terms("F32BF16BF16")) and "64x128x16" in word_terms("MMA_64x128x16_F32")
    assert {"warp", "reduc", "sum", "warpreduc"} <= set(word_terms("warp_reduce_sum"))
    assert {"sm90a", "sm90"} <= set(word_terms("sm_90a"))  # the arch variant also finds sm90
    groups = query_groups("how to do a wgmma over shared memory")
    assert ("wgmma", "gmma") in groups and ("share", "smem") in groups
    assert all("how" not in g for g in groups)  # stop words dropped
    assert ("+sharememori",) in groups  # the join of adjacent words


@pytest.fixture
def small(tmp_path):
    """A corpus of two small header trees and its index."""
    inc = tmp_path / "inc"
    (inc / "lib").mkdir(parents=True)
    (inc / "lib" / "warp.cuh").write_text(HEADER)
    (inc / "lib" / "other.cuh").write_text(textwrap.dedent("""\
        namespace lib {
        /// Sum of a block with shuffles and one shared array.
        template <int B> __device__ float block_sum(float v) { return v; }
        /// Sum of a block, another overload.
        template <int B> __device__ double block_sum(double v) { return v; }
        /// Transpose a matrix through a shared-memory tile.
        __device__ void transpose_tile(float* out, const float* in) {}
        /// Prefix scan of a block.
        __device__ void _scan_prefix(int* x) {}
        /// Prefix scan of a block.
        __device__ void scan_prefix(int* x) {}
        namespace detail {
        /// Prefix scan of a block.
        __device__ void scan_prefix(int* x) {}
        }
        }
        """))
    ex = tmp_path / "examples"
    ex.mkdir()
    (ex / "demo.cu").write_text("/// Demonstrates a block sum.\n__global__ void demo_kernel() {}\n")
    c = Corpus([Source("kernelpro", "t", inc / "lib", inc, "v1", f"-I{inc}"),
                Source("cutlass-examples", "e", ex, None, "v1", "", suffixes=(".cu",))],
               [Missing("cub", "not here in this test")])
    path = tmp_path / "index.sqlite"
    meta = build(c, path, workers=1)
    return c, Index(path), meta


def test_index_ranks_and_describes_hits(small):
    c, ix, meta = small
    assert meta["sources"]["kernelpro"]["files"] == 2 and meta["missing"] == {"cub": "not here in this test"}
    hits = ix.search("block sum")
    top = hits[0]
    assert top.symbol == "lib::block_sum" and top.overloads == 2  # overloads are one hit
    assert top.include == "#include <lib/other.cuh>" and top.flags.startswith("-I")
    assert top.url.startswith("file://") and top.url.endswith(f"#L{top.start_line}")
    assert top.excerpt.startswith("Sum of a block") and top.end_line >= top.start_line
    assert ix.search("transpose tile shared memory")[0].symbol == "lib::transpose_tile"
    assert ix.search("warp reduce sum")[0].symbol.startswith("cub::WarpReduce")  # the macro-opened namespace
    demo = ix.search("demo kernel")[0]
    assert demo.source == "cutlass-examples" and demo.include.startswith("example code, not a header")
    assert all(h.source == "cutlass-examples" for h in ix.search("block sum", sources=["cutlass-examples"]))
    assert ix.search("zzzqqq") == []
    with pytest.raises(HuntError, match="empty query"):
        ix.search("  ")
    with pytest.raises(HuntError, match="no searchable word"):
        ix.search("the of to")


def test_internal_names_rank_below_public_ones(small):
    _, ix, _ = small
    hits = [h.symbol for h in ix.search("scan prefix", limit=10)]
    assert hits[:3] == ["lib::scan_prefix", "lib::detail::scan_prefix", "lib::_scan_prefix"]


def test_include_of_libcudacxx_internal_header_is_the_public_one(tmp_path):
    root = tmp_path / "cccl"
    (root / "cuda" / "std" / "__atomic").mkdir(parents=True)
    (root / "cuda" / "std" / "atomic").write_text("#include <cuda/std/__atomic/api.h>\n")
    (root / "cuda" / "std" / "__atomic" / "api.h").write_text("")
    (root / "cuda" / "std" / "__cccl").mkdir()
    src = Source("libcu++", "", root / "cuda", root, "1", "", None)
    assert include_for(src, root / "cuda" / "std" / "__atomic" / "api.h") == ("#include <cuda/std/atomic>", "")
    assert include_for(src, root / "cuda" / "std" / "__cccl" / "x.h")[0] == "#include <cuda/std/__cccl/x.h>"


@pytest.fixture
def one_header(tmp_path, monkeypatch):
    """A private cache and a corpus of one header, which api.corpus_and_index will find."""
    monkeypatch.setenv("KERNELPRO_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(api, "_open", {})
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "a.cuh").write_text("/// Adds.\n__device__ int add(int a, int b) { return a + b; }\n")

    def corpus(version="v1"):
        c = Corpus([Source("kernelpro", "t", inc, inc, version)])
        monkeypatch.setattr(api, "discover", lambda nvcc=None: c)
        return c
    return corpus


def test_cache_key_follows_the_corpus_and_the_index_is_reused(one_header, tmp_path, monkeypatch):
    c2 = one_header("v2")
    c1 = one_header("v1")
    p1, p2 = index_path(c1), index_path(c2)
    assert p1 != p2 and p1.parent == tmp_path / "cache" / "hunt"
    _, ix = api.corpus_and_index()
    assert p1.is_file() and ix.search("add")[0].symbol == "add"
    mtime = p1.stat().st_mtime_ns
    monkeypatch.setattr(api, "_open", {})
    api.corpus_and_index()
    assert p1.stat().st_mtime_ns == mtime  # built once per corpus version


def test_a_damaged_index_is_built_again(one_header):
    path = index_path(one_header())
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a database" * 100)
    _, ix = api.corpus_and_index()
    assert ix.search("add")[0].symbol == "add"


def _run_cli(argv, capsys):
    rc = cli.main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def test_cli_says_so_for_empty_query_bad_source_and_missing_corpus(capsys, monkeypatch, tmp_path):
    rc, _, err = _run_cli(["hunt"], capsys)
    assert rc == 2 and "empty query" in err
    rc, _, err = _run_cli(["hunt", "x", "--source", "boost"], capsys)
    assert rc == 2 and "--source boost: unknown source" in err
    monkeypatch.setattr(api, "discover", lambda nvcc=None: Corpus([], [Missing("cutlass", "nvidia-cutlass is not "
                                                                                "installed (pip install nvidia-cutlass)")]))
    rc, _, err = _run_cli(["hunt", "warp", "reduce"], capsys)
    assert rc == 2 and "no corpus" in err and "pip install nvidia-cutlass" in err
    # one source missing: named on stderr, the others searched; asking only for it is an error
    monkeypatch.setenv("KERNELPRO_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(api, "_open", {})
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "a.cuh").write_text("/// Sum of a warp.\n__device__ int warp_sum(int v) { return v; }\n")
    c = Corpus([Source("kernelpro", "t", inc, inc, "v1")], [Missing("cutlass", "nvidia-cutlass is not installed")])
    monkeypatch.setattr(api, "discover", lambda nvcc=None: c)
    rc, out, err = _run_cli(["hunt", "warp", "sum"], capsys)
    assert rc == 0 and "warp_sum" in out and "cutlass not searched: nvidia-cutlass is not installed" in err
    rc, out, err = _run_cli(["hunt", "--json", "warp", "sum"], capsys)
    d = json.loads(out)
    assert rc == 0 and d["results"][0]["symbol"] == "warp_sum" and d["missing"] == {"cutlass": c.missing[0].reason}
    assert {"file", "start_line", "end_line", "symbol", "excerpt", "include", "url"} <= set(d["results"][0])
    rc, _, err = _run_cli(["hunt", "warp", "--source", "cutlass"], capsys)
    assert rc == 2 and "cutlass is not available" in err
    rc, out, err = _run_cli(["hunt", "zzqqxx"], capsys)
    assert rc == 1 and "no match for 'zzqqxx'" in err and out == ""


def test_discover_reports_a_missing_toolkit(tmp_path):
    c = corpus_mod.discover(nvcc=str(tmp_path / "no-nvcc"))
    assert {m.name for m in c.missing} >= {"cub", "libcu++", "cooperative_groups"}
    assert c.source("kernelpro") is not None and "no CUDA toolkit" in c.missing[-1].reason


def test_advice_links_round_trip_and_print():
    a = Advice("block-reduction-barriers", Severity.WARNING, "k", "k.cu", 3, "m", "r",
               links=[Link("kernelpro::block_reduce", "file:///x/block_reduce.cuh#L29", "#include <kernelpro/block_reduce.cuh>")])
    d = a.to_json()
    assert d["links"][0]["url"].endswith("#L29") and Advice.from_json(json.loads(json.dumps(d))) == a
    assert "see: kernelpro::block_reduce (#include <kernelpro/block_reduce.cuh>) file:///x/block_reduce.cuh#L29" in a.text()
    old = dict(d)
    del old["links"]  # advice stored before links existed still reads
    assert Advice.from_json(old).links == []


def test_reduction_advice_links_to_the_block_reduction_and_the_editor_can_open_it():
    from kernelpro.lsp_server.convert import advice_diagnostic
    from kernelpro.profilers.compile import CompileOptions
    from kernelpro.profilers.profile import profile_file

    rep = profile_file(ROOT / "examples" / "b_tree_reduce.cu", CompileOptions())
    (a,) = [a for a in rep.advice if a.rule == "block-reduction-barriers"]
    assert "kernelpro::block_reduce_sum" in a.remedy
    (link,) = a.links
    path, _, line = link.url.partition("#L")
    header = Path(path.removeprefix("file://"))
    assert header.name == "block_reduce.cuh" and "#include <kernelpro/block_reduce.cuh>" in link.detail
    assert "block_reduce(T v, Op op)" in header.read_text().splitlines()[int(line) - 1 + 1]
    diag = advice_diagnostic(a, rep.source.lines, (ROOT / "examples" / "b_tree_reduce.cu").as_uri())
    rel = [r for r in diag.related_information if r.location.uri == path]
    assert rel and rel[0].location.range.start.line == int(line) - 1


def test_transpose_advice_links_to_the_tiled_transpose():
    from kernelpro.profilers.compile import CompileOptions
    from kernelpro.profilers.profile import profile_file

    rep = profile_file(ROOT / "examples" / "a_naive_transpose.cu", CompileOptions())
    (a,) = [a for a in rep.advice if a.rule == "uncoalesced-access"]
    assert "kernelpro::transpose_tile" in a.remedy and a.links[0].title == "kernelpro::transpose_tile"


@pytest.mark.slow
def test_the_library_ships_as_package_data(tmp_path):
    src = tmp_path / "src"  # a copy, so the build leaves nothing in the work tree
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(".git", "node_modules", "build", "*.egg-info",
                                                             "__pycache__", ".gpuwheels", "vscode-client"))
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path / "dist"),
                        str(src)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    (whl,) = (tmp_path / "dist").glob("kernelpro-*.whl")
    names = zipfile.ZipFile(whl).namelist()
    for h in ("warp_reduce", "block_reduce", "vector_io", "transpose", "online_softmax", "gemm_sm90"):
        assert f"kernelpro/profilers/hunt/include/kernelpro/{h}.cuh" in names


# --- over the real corpus (built once per test session: slow) -----------------------------------
@pytest.fixture(scope="module")
def real():
    with session_lock("hunt-index"):  # under `pytest -n 2` one process builds it, the other waits
        corpus, ix = api.corpus_and_index()
    return corpus, ix


@pytest.mark.slow
def test_real_corpus_has_every_source(real):
    corpus, ix = real
    assert [s.name for s in corpus.sources] == ["kernelpro", "cutlass", "cutlass-examples", "cub", "libcu++",
                                                "cooperative_groups"], corpus.missing
    counts = {k: v["symbols"] for k, v in ix.meta["sources"].items()}
    assert counts["cutlass"] > 10000 and counts["cub"] > 500 and counts["libcu++"] > 1000 and counts["kernelpro"] > 20


@pytest.mark.slow
def test_llm_tool_hunts_building_blocks(real):
    from kernelpro.optimizer.llm_tools import make_tools
    from kernelpro.profilers.compile import CompileOptions

    tools = {t.name: t for t in make_tools(ROOT / "examples" / "b_tree_reduce.cu", "block_max", CompileOptions())}
    out = tools["hunt_building_blocks"].fn({"query": "block reduction with shuffles", "limit": 3})
    assert "kernelpro" in out and "#include <kernelpro/block_reduce.cuh>" in out
    assert tools["hunt_building_blocks"].parameters["required"] == ["query"]
    with pytest.raises(ValueError, match="'query' must say what you need"):
        tools["hunt_building_blocks"].fn({"query": ""})
    assert "no building block matches" in tools["hunt_building_blocks"].fn({"query": "zzqqxxyy"})


@pytest.mark.slow
def test_cli_end_to_end_on_the_real_corpus():
    env = dict(os.environ)
    with session_lock("hunt-index"):
        r = subprocess.run([sys.executable, "-m", "kernelpro.profilers.cli", "hunt", "--json", "block", "radix", "sort"],
                           capture_output=True, text=True, timeout=600, env=env)
    assert r.returncode == 0, r.stderr
    top = json.loads(r.stdout)["results"][0]
    assert top["symbol"] == "cub::BlockRadixSort" and top["include"] == "#include <cub/block/block_radix_sort.cuh>"
