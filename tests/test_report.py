"""benchmarks/report.py: the report from the JSON alone, byte for byte the same each time; speedups only
from re-measurements, flagged results not reported, the LLM column "not run"; each rule's hit rate
computed from the runs' attempts and written into docs/rules.md between markers; the committed pages
current; synthetic data kept out of docs/."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import docblocks  # noqa: E402
import hit_rates  # noqa: E402
import report  # noqa: E402
import report_data as rd  # noqa: E402
from synthetic_lab import FIXTURE  # noqa: E402

from kernelpro.profilers.tools import load_builtin  # noqa: E402

RULES = {r for t in load_builtin().values() for r in t.rules}


def kernel_row(text: str, family: str) -> str:
    """The family's row of the per-kernel table."""
    section = text.split("## Per kernel", 1)[1].split("\n## ", 1)[0]
    return next(line for line in section.splitlines() if line.startswith(f"| `{family}` |"))


@pytest.fixture(scope="module")
def results():
    return json.loads(FIXTURE.read_text())


@pytest.fixture(scope="module")
def built(results):
    return report.build(results)


def test_the_report_is_byte_for_byte_the_same_each_time(results, built, tmp_path):
    assert sorted(built) == ["energy.svg", "index.md", "roofline.svg", "search.svg", "speedup.svg"]
    assert report.build(json.loads(FIXTURE.read_text())) == built
    # and from another process, through the command line
    r = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "report.py"), str(FIXTURE), "--out", str(tmp_path)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    for name, data in built.items():
        assert (tmp_path / name).read_bytes() == data, name
    svg = built["speedup.svg"].decode()
    assert "<dc:date>" not in svg and "Matplotlib v" not in svg and "SYNTHETIC TEST DATA" in svg


def test_speedups_are_the_re_measured_ones_not_the_search_s(results, built):
    fam = results["families"]["gelu"]
    runs = [r for r in fam["runs"].values() if r["objective"] == "time" and r["strategy"] == "mcts"]
    remeasured = sorted(rd.geomean([r["measured"]["naive"]["times_s"][s] / r["measured"]["optimized"]["times_s"][s]
                                    for s in ("small", "large")]) for r in runs)
    searched = sorted(r["search_speedup"] for r in runs)
    assert remeasured != searched  # the fixture's search numbers differ from its re-measurements, as on a GPU
    row = kernel_row(built["index.md"].decode(), "gelu")
    med = (remeasured[0] + remeasured[1]) / 2
    assert f"{med:.2f}x [{remeasured[0]:.2f}–{remeasured[1]:.2f}] (2 seeds)" in row
    base = fam["baseline"]
    best = rd.geomean([base["naive"]["times_s"][s] / base["best"]["times_s"][s] for s in ("small", "large")])
    assert f"| {best:.2f}x |" in row


def test_a_result_beyond_the_ceilings_is_flagged_not_reported(results, built):
    text = built["index.md"].decode()
    row = kernel_row(text, "softmax")
    assert row.split(" | ")[2] == "flagged"  # the KernelPro column
    flagged = text.split("## Flagged")[1].split("##")[0]
    assert flagged.count("`softmax`") == 6 and "the measured DRAM bandwidth" in flagged
    assert rd.strategy_table(results)["softmax"]["mcts"] is None


def test_llm_column_says_not_run_and_synthetic_data_says_so(built):
    text = built["index.md"].decode()
    assert text.startswith("# Benchmark report: the suite on the SYNTHETIC GPU (synthetic test data)")
    assert "**SYNTHETIC TEST DATA, NOT A MEASUREMENT.**" in text
    for fam in ("gelu", "layernorm", "softmax"):
        assert kernel_row(text, fam).endswith("| not run |")
    assert "not run: no endpoint configured" in text


def test_energy_saved_at_equal_speed(results):
    rows = rd.energy_rows(results)
    assert [(r["family"], r["seed"]) for r in rows] == [("gelu", 0), ("layernorm", 0)]
    for r in rows:
        e = r["energy_j"]
        assert r["saved_vs_time_best"] == pytest.approx(1 - e["optimized"] / e["time_best"])
        assert r["equal_speed"] == (r["time_ratio"] <= 1.02)


def _run(answers_outcome_speedup, root=()):
    return {"objective": "time", "complete": True,
            "attempts": [{"answers": a, "outcome": o, "speedup": s} for a, o, s in answers_outcome_speedup]}


def test_hit_rates_count_answers_correct_ones_and_big_gains():
    results = {"families": {
        "a": {"root_rules": ["r1", "r2"], "rule_tools": {"r1": "t1", "r2": "t2", "r3": "t3"},
              "runs": {"time/mcts/0": _run([(["r1"], "improved", 2.0), (["r1", "r2"], "incorrect", None),
                                            (["r2"], "neutral", 1.0)]),
                       "time/mcts/1": _run([(["r1"], "improved", 1.4)]),
                       "energy/mcts/0": {"objective": "energy", "complete": True,  # another objective: not counted
                                         "attempts": [{"answers": ["r1"], "outcome": "improved", "speedup": 9.0}]},
                       "time/greedy/0": {"objective": "time", "complete": False,  # cut short: not counted
                                         "attempts": [{"answers": ["r1"], "outcome": "improved", "speedup": 9.0}]}}}}}
    hr = hit_rates.hit_rates(results)
    assert hr["runs"] == 2
    r1, r2, r3 = (hr["rules"][k] for k in ("r1", "r2", "r3"))
    assert (r1["fired_runs"], r1["followed_runs"], r1["candidates"], r1["correct"], r1["hits"]) == (2, 2, 3, 2, 1)
    assert r1["hit_rate"] == pytest.approx(1 / 3) and r1["tool"] == "t1"
    assert (r2["candidates"], r2["correct"], r2["hits"], r2["hit_rate"]) == (2, 1, 0, 0.0)
    assert (r3["fired_runs"], r3["candidates"], r3["hit_rate"]) == (0, 0, None)
    assert "**33%**: of 3 candidates" in hit_rates.rule_text("r1", results, hr)
    assert "no candidate answered it in 2 runs" in hit_rates.rule_text("r3", results, hr)
    assert "newer than the suite run" in hit_rates.rule_text("r9", results, hr)


def test_rules_doc_blocks_are_inserted_once_and_regenerate_byte_for_byte(results):
    text = (ROOT / "docs" / "rules.md").read_text()
    real = report.load(report.RESULTS) if report.RESULTS.exists() else None  # the committed run, if any
    plain = text
    for rule in RULES:  # the page without its blocks, as before the first generation
        name = f"hit-rate {rule}"
        if docblocks.has_block(plain, name):
            plain = plain.replace("\n" + docblocks.block(name, hit_rates.rule_text(rule, real)) + "\n", "")
    assert "hit-rate" not in plain
    once = hit_rates.rules_doc(plain, real, RULES)
    assert once == text  # the committed page is exactly the generated one
    assert hit_rates.rules_doc(once, real, RULES) == once
    measured = hit_rates.rules_doc(once, results, RULES)
    assert measured.count(":begin -->") == once.count(":begin -->") == len(RULES)
    assert "not measured yet" not in measured and "**40%**" in measured
    assert hit_rates.rules_doc(measured, real, RULES) == once


def test_every_rule_section_says_not_measured_yet_until_a_real_run():
    text = (ROOT / "docs" / "rules.md").read_text()
    for rule in sorted(RULES):
        assert docblocks.has_block(text, f"hit-rate {rule}"), rule
    if report.RESULTS.exists():  # a real run is committed: every section shows what it measured
        assert "not measured yet" not in text
    else:
        assert text.count("not measured yet: the suite has not been run on the H200") == len(RULES)


def test_committed_pages_are_current_and_a_stale_one_is_found(tmp_path):
    assert report.check_committed() == []
    index = (ROOT / "docs" / "benchmarks" / "index.md").read_text()
    if report.RESULTS.exists():  # a real run is committed: the page reports it
        assert "has not been made yet" not in index and "NVIDIA H200" in index
    else:
        assert "has not been made yet" in index and "bash scripts/gpu_report.sh" in index
    assert "docs/benchmarks/index.md" in (ROOT / "README.md").read_text()
    assert "benchmarks/index.md" in (ROOT / "docs" / "benchmarks.md").read_text()
    files = report.build(None)
    (tmp_path / "index.md").write_bytes(files["index.md"] + b" ")
    (tmp_path / "old.svg").write_text("<svg/>")
    problems = report.check(tmp_path, files, {})
    assert len(problems) == 2 and "is not what" in problems[0] and "left over" in problems[1]


def test_synthetic_data_never_goes_into_docs():
    r = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "report.py"), str(FIXTURE)],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "synthetic test data, not a measurement" in r.stderr
    assert report.check_committed() == []


def test_links_of_the_generated_pages_resolve(built, tmp_path):
    import re

    def targets(page: Path, text: str):
        for link in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if "://" not in link:
                yield link, (page.parent / link).resolve()
    pages = [(ROOT / "docs" / "benchmarks" / "index.md", None), (ROOT / "README.md", None),
             (ROOT / "docs" / "rules.md", None), (ROOT / "docs" / "benchmarks.md", None),
             # the report made from results, as it would sit in docs/benchmarks/ (its plots beside it)
             (ROOT / "docs" / "benchmarks" / "index.md", built["index.md"].decode())]
    for page, text in pages:
        for link, target in targets(page, text if text is not None else page.read_text()):
            if text is not None and target.parent == page.parent and target.name in built:
                continue
            assert target.exists(), f"{page.relative_to(ROOT)}: link {link} goes nowhere"


def test_roofline_labels_of_nearby_points_do_not_overlap():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import report_plots

    fig, ax = plt.subplots()
    pts = {"layernorm": {"optimizer": (1.0, 3000.0)}, "rmsnorm": {"optimizer": (1.01, 3050.0)},
           "residual": {"optimizer": (0.08, 300.0)}}
    ax.scatter([1.0, 1.01, 0.08], [3000.0, 3050.0, 300.0])
    ax.set_xscale("log")
    ax.set_yscale("log")
    places = report_plots._label_places(ax, pts)
    assert set(places) == set(pts)
    assert places["layernorm"][1:] != places["rmsnorm"][1:], "two labels in the same slot at the same point"
    assert places["residual"][1:] == report_plots.LABEL_SLOTS[0], "a point alone keeps the first slot"
    plt.close(fig)


def test_per_size_tables_name_the_best_peer_and_the_ratio_to_it(results, built):
    fam = results["families"]["layernorm"]
    rows = rd.size_rows(fam)
    assert [r["size"] for r in rows] == ["small", "large"]  # in the order of the bytes moved
    for r in rows:
        peers = {k: m["times_s"][r["size"]] for k, m in rd.peer_measurements(fam).items() if rd.usable(m)}
        assert "liger" in peers and "quack" not in peers  # QuACK absent in the fixture: no time
        best = min(peers, key=peers.get)
        assert r["best_peer"] == best and r["best_peer_s"] == peers[best]
        assert r["kernelpro_vs_peer"] == pytest.approx(peers[best] / r["kernelpro_s"])
        assert r["best_vs_peer"] == pytest.approx(peers[best] / fam["baseline"]["best"]["times_s"][r["size"]])
    text = built["index.md"].decode()
    section = text.split("## Per size, against the best peer", 1)[1].split("\n## ", 1)[0]
    part = section.split("**`layernorm`**", 1)[1].split("**`", 1)[0]
    assert "| Liger-Kernel |" in part and "torch.compile max-autotune" in part
    assert f"| {rd.PEER_LABELS[rows[1]['best_peer']]} | {rows[1]['kernelpro_vs_peer']:.2f}x |" in part
    assert "No time from: QuACK (ModuleNotFoundError" in part
    # a family whose torch.compile failed: the failure said, the other peers still compared
    soft = section.split("**`softmax`**", 1)[1].split("**`", 1)[0]
    assert "torch.compile (RuntimeError: synthetic: no compiler for inductor)" in soft
