"""Nsight Compute: profile one kernel launch and read the raw, details and source pages.

`profile_kernel` runs the target (the runner's one-shot worker) under
`ncu --clock-control none`, keeps the report, and exports three CSV pages from it:
`--page raw` (one row per launch: every metric with its unit), `--page details` (section
metrics and the built-in rule results with their estimated speedups) and `--page source
--print-source cuda,sass` (per source line and per SASS instruction: warp-stall samples,
L2 sectors, shared wavefronts, instructions executed ...). The parsers are separate,
pure functions so recorded CSVs can be replayed without a GPU.

Column names of the source page differ between ncu versions (and between the label and
metric-name spellings); `canonical_column` maps the ones the rules use to stable keys and
every other column keeps its own header as its key.
"""
from __future__ import annotations

import csv
import glob
import io
import os
import re
import shutil
import subprocess
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..children import child_env

DEFAULT_SECTIONS = (
    "SpeedOfLight", "MemoryWorkloadAnalysis", "MemoryWorkloadAnalysis_Tables", "Occupancy",
    "WarpStateStats", "SourceCounters", "LaunchStats", "ComputeWorkloadAnalysis",
)
NCU_GLOBS = ("/opt/nvidia/nsight-compute/*/ncu", "/usr/local/cuda/bin/ncu", "/usr/local/cuda-*/bin/ncu")


class NcuError(Exception):
    """ncu failed or printed something the parsers cannot read; the message says what and where."""


# ---------------------------------------------------------------- data

@dataclass
class Metric:
    value: float | str | None  # None for "n/a" or an empty cell
    unit: str = ""

    @property
    def number(self) -> float | None:
        return self.value if isinstance(self.value, float) else None


@dataclass
class RuleResult:
    section: str
    name: str
    type: str  # "OPT", "INF", "WRN", "ERR"
    message: str
    est_speedup: float | None = None  # percent, as ncu prints it
    speedup_type: str = ""  # "global" (whole kernel) or "local" (one unit)


@dataclass
class LineCounters:
    """ncu's aggregate for one source line (file, 1-based line)."""
    file: str
    line: int
    source: str
    counters: dict[str, float | str] = field(default_factory=dict)
    kernel: str = ""

    def num(self, key: str, default: float = 0.0) -> float:
        v = self.counters.get(key)
        return v if isinstance(v, float) else default


@dataclass
class SassCounters:
    """One SASS instruction; `line`/`file` are the source line it belongs to, where known."""
    address: int
    source: str
    line: int | None = None
    file: str = ""
    counters: dict[str, float | str] = field(default_factory=dict)
    kernel: str = ""

    def num(self, key: str, default: float = 0.0) -> float:
        v = self.counters.get(key)
        return v if isinstance(v, float) else default

    @property
    def opcode(self) -> str:
        """SASS opcode without predicate and modifiers ("@!P0 LDG.E.128 R4, ..." -> "LDG")."""
        text = self.source.strip()
        if text.startswith("@"):
            text = text.split(None, 1)[1] if " " in text else ""
        return text.split(".", 1)[0].split(None, 1)[0] if text else ""


@dataclass
class NcuResult:
    kernel: str = ""
    launch_id: str = ""
    raw: dict[str, Metric] = field(default_factory=dict)
    rules: list[RuleResult] = field(default_factory=list)
    source_lines: list[LineCounters] = field(default_factory=list)
    sass_lines: list[SassCounters] = field(default_factory=list)
    details: dict[str, Metric] = field(default_factory=dict)  # "Section/Metric Name" -> value
    info: dict[str, str] = field(default_factory=dict)  # raw page's Block Size, Grid Size, Device, CC ...
    verdict: Any = None  # the roofline verdict ("memory-bound", ...) or a dict with "verdict"
    report: str = ""  # path of the .ncu-rep
    notes: list[str] = field(default_factory=list)

    def metric(self, *names: str) -> float | None:
        """The first of `names` the raw page holds as a number."""
        for n in names:
            m = self.raw.get(n)
            if m is not None and m.number is not None:
                return m.number
        return None

    def unit(self, name: str) -> str:
        m = self.raw.get(name)
        return m.unit if m else ""

    def lines_for(self, path: str | None = None) -> list[LineCounters]:
        """Source lines of `path` (matched by file name, since ncu records the build machine's
        path); falls back to SASS rows summed per line when the page had no line rows."""
        lines = _merge_sass(self.source_lines, self.sass_lines) if self.source_lines else _lines_from_sass(self.sass_lines)
        if not path:
            return lines
        base = os.path.basename(path)
        return [ln for ln in lines if not ln.file or os.path.basename(ln.file) == base]

    def sass_for(self, line: int, path: str | None = None) -> list[SassCounters]:
        base = os.path.basename(path) if path else None
        return [s for s in self.sass_lines if s.line == line
                and (base is None or not s.file or os.path.basename(s.file) == base)]

    def verdict_name(self) -> str | None:
        return verdict_name(self.verdict)

    def to_json(self) -> dict:
        return asdict(self)


def verdict_name(v: Any) -> str | None:
    """'memory-bound' | 'compute-bound' | 'latency-bound' | None from a string, dict or object."""
    if v is None:
        return None
    get = v.get if isinstance(v, dict) else (lambda k: getattr(v, k, None))
    if not isinstance(v, str):
        v = get("verdict") if get("verdict") != "impossible" else get("bound")  # a roofline Verdict
    return v if isinstance(v, str) and v else None


def _merge_sass(lines: list[LineCounters], sass: list[SassCounters]) -> list[LineCounters]:
    """Line rows with the counters only their instruction rows carry filled in (sums)."""
    sums = {(x.file, x.line): x.counters for x in _lines_from_sass(sass)}
    out = []
    for ln in lines:
        extra = {k: v for k, v in sums.get((ln.file, ln.line), {}).items() if k not in ln.counters}
        out.append(LineCounters(ln.file, ln.line, ln.source, {**extra, **ln.counters}, ln.kernel) if extra else ln)
    return out


def _lines_from_sass(sass: list[SassCounters]) -> list[LineCounters]:
    out: dict[tuple[str, int], LineCounters] = {}
    for s in sass:
        if s.line is None:
            continue
        ln = out.setdefault((s.file, s.line), LineCounters(s.file, s.line, "", {}, s.kernel))
        for k, v in s.counters.items():
            if isinstance(v, float):
                ln.counters[k] = ln.num(k) + v
    return sorted(out.values(), key=lambda x: (x.file, x.line))


# ---------------------------------------------------------------- cells

_THOUSANDS = re.compile(r"^[-+]?\d{1,3}(,\d{3})+(\.\d*)?([eE][-+]?\d+)?$")
_MISSING = {"", "n/a", "na", "-", "nan", "(n/a)", "--"}


def parse_number(cell: str | None) -> float | str | None:
    """'1,234.5' -> 1234.5, '12%' -> 12.0, 'n/a' / '' -> None, text stays text."""
    if cell is None:
        return None
    s = cell.strip()
    if s.lower() in _MISSING:
        return None
    t = s[:-1].strip() if s.endswith("%") else s
    if _THOUSANDS.match(t):
        t = t.replace(",", "")
    try:
        return float(t)
    except ValueError:
        return s


def csv_rows(text: str) -> list[list[str]]:
    """CSV rows of an ncu page, without ==PROF==/==WARNING== lines and blank rows."""
    text = text.lstrip("\ufeff")
    keep = [ln for ln in text.splitlines() if not ln.startswith("==")]
    rows = csv.reader(io.StringIO("\n".join(keep)))
    return [r for r in rows if any(c.strip() for c in r)]


def base_name(kernel: str) -> str:
    """'void ns::k<4>(float *, int)' -> 'k'; a plain name stays as it is."""
    s = kernel.strip()
    depth, cut = 0, len(s)
    for i, c in enumerate(s):  # cut at the parameter list (outside template brackets)
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        elif c == "(" and depth == 0:
            cut = i
            break
    s = s[:cut]
    s = re.sub(r"<.*>$", "", s).strip()
    s = s.split()[-1] if s.split() else s
    return s.split("::")[-1]


def kernel_matches(cell: str, want: str | None) -> bool:
    """Does ncu's kernel cell name the requested kernel (a name, a mangled name or 'regex:...')?"""
    if not want:
        return True
    if want.startswith("regex:"):
        try:
            return re.search(want[6:], cell) is not None or re.search(want[6:], base_name(cell)) is not None
        except re.error:
            return False
    if cell == want or base_name(cell) == want or (want.startswith("_Z") and want in cell):
        return True
    return cell.startswith("_Z") and re.match(rf"_ZN?(?:\d+\w+?)*?{len(want)}{re.escape(want)}", cell) is not None


def _select(keys: list[tuple[str, str]], kernel: str | None, launch: str | None, page: str) -> tuple[str, str]:
    """Pick the (id, kernel) the caller asked for among the page's launches."""
    cands = [k for k in keys if kernel_matches(k[1], kernel) and (launch is None or k[0] == str(launch))]
    if not cands:
        have = ", ".join(f"{i}:{base_name(n)}" for i, n in keys[:8]) or "none"
        raise NcuError(f"{page} page: no launch of kernel {kernel!r}"
                       + (f" with ID {launch}" if launch is not None else "") + f" (launches: {have})")
    return cands[0]


# ---------------------------------------------------------------- raw page

@dataclass
class RawPage:
    kernel: str
    launch_id: str
    info: dict[str, str]  # the non-metric columns: Block Size, Grid Size, Device, CC ...
    metrics: dict[str, Metric]


_INFO_COLUMNS = {"ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Kernel Time", "Context",
                 "Stream", "Block Size", "Grid Size", "Device", "CC", "Function Name", "Demangled Name"}


def parse_raw(text: str, kernel: str | None = None, launch: str | None = None) -> RawPage:
    """`ncu --page raw --csv`: a header of metric names, a units row, one row per launch."""
    rows = csv_rows(text)
    hi = next((i for i, r in enumerate(rows) if r and r[0].strip() == "ID"), None)
    if hi is None:
        raise NcuError("raw page: no header row starting with \"ID\" (is this `ncu --page raw --csv` output?)")
    header = [h.strip() for h in rows[hi]]
    body = rows[hi + 1:]
    units = [""] * len(header)
    if body and not body[0][0].strip():
        units = body[0] + [""] * (len(header) - len(body[0]))
        body = body[1:]
    ki = header.index("Kernel Name") if "Kernel Name" in header else None
    launches = [r for r in body if r and r[0].strip()]
    keys = [(r[0].strip(), r[ki] if ki is not None and ki < len(r) else "") for r in launches]
    if not keys:
        raise NcuError("raw page: a header but no launch rows (did ncu profile any kernel? check -k and -c)")
    lid, name = _select(keys, kernel, launch, "raw")
    row = launches[[k[0] for k in keys].index(lid)]
    info, metrics = {}, {}
    for i, h in enumerate(header):
        cell = row[i] if i < len(row) else ""
        if h in _INFO_COLUMNS:
            info[h] = cell
        elif h and h not in metrics:
            metrics[h] = Metric(parse_number(cell), units[i].strip() if i < len(units) else "")
    return RawPage(name, lid, info, metrics)


# ---------------------------------------------------------------- details page

def parse_details(text: str, kernel: str | None = None, launch: str | None = None
                  ) -> tuple[dict[str, Metric], list[RuleResult]]:
    """`ncu --page details --csv --print-details all`: section metrics and rule results."""
    rows = csv_rows(text)
    hi = next((i for i, r in enumerate(rows) if r and r[0].strip() == "ID"), None)
    if hi is None:
        raise NcuError("details page: no header row starting with \"ID\" (is this `ncu --page details --csv` output?)")
    header = [h.strip() for h in rows[hi]]
    col = {h: i for i, h in reversed(list(enumerate(header)))}

    def cell(r: list[str], name: str) -> str:
        i = col.get(name)
        return r[i].strip() if i is not None and i < len(r) else ""

    body = [r for r in rows[hi + 1:] if r and r[0].strip()]
    keys = list(dict.fromkeys((cell(r, "ID"), cell(r, "Kernel Name")) for r in body))
    if not keys:
        raise NcuError("details page: a header but no rows")
    lid, _ = _select(keys, kernel, launch, "details")
    metrics: dict[str, Metric] = {}
    rules: list[RuleResult] = []
    for r in body:
        if cell(r, "ID") != lid:
            continue
        section = cell(r, "Section Name")
        if cell(r, "Rule Name"):
            sp = parse_number(cell(r, "Estimated Speedup"))
            rules.append(RuleResult(section, cell(r, "Rule Name"), cell(r, "Rule Type"),
                                    cell(r, "Rule Description"), sp if isinstance(sp, float) else None,
                                    cell(r, "Estimated Speedup Type")))
        elif cell(r, "Metric Name"):
            metrics.setdefault(f"{section}/{cell(r, 'Metric Name')}",
                               Metric(parse_number(cell(r, "Metric Value")), cell(r, "Metric Unit")))
    return metrics, rules


# ---------------------------------------------------------------- source page

# Stall reasons by the short names ncu's source page uses ("stall_long_sb") and by the
# metric suffixes (smsp__pcsamp_warps_issue_stalled_long_scoreboard).
STALL_ALIASES = {
    "long_sb": "long_scoreboard", "short_sb": "short_scoreboard", "mio": "mio_throttle",
    "math": "math_pipe_throttle", "lg": "lg_throttle", "tex": "tex_throttle",
    "no_inst": "no_instruction", "no_instructions": "no_instruction", "dispatch": "dispatch_stall",
    "imc": "imc_miss", "sleep": "sleeping", "branch": "branch_resolving",
}
STALL_REASONS = (
    "long_scoreboard", "barrier", "mio_throttle", "math_pipe_throttle", "short_scoreboard", "wait",
    "not_selected", "lg_throttle", "tex_throttle", "drain", "membar", "branch_resolving",
    "dispatch_stall", "no_instruction", "selected", "imc_miss", "misc", "sleeping",
)


def stall_reason(name: str) -> str:
    n = name.lower().strip()
    return STALL_ALIASES.get(n, n)


def _tokens(name: str) -> list[str]:
    return [t for t in re.split(r"[^a-z0-9]+", name.lower().replace("n-way", "nway")) if t]


def canonical_column(header: str) -> str:
    """A stable key for the source-page columns the rules read; any other column keeps its header.

    Keys: samples, samples_not_issued, inst_executed, thread_inst_executed,
    pred_on_thread_inst_executed, divergent_branches, avg_threads, l2_sectors_global(_ideal|_excessive),
    l1_wavefronts_shared(_ideal|_excessive), l1_conflicts_shared_nway, l1_requests_global,
    stall:<reason>, stall_not_issued:<reason>.
    """
    h = header.strip()
    low = h.lower()
    t = _tokens(h)
    ts = set(t)
    not_issued = "not issued" in low or "not_issued" in low or "not-issued" in low
    m = re.match(r"^stall_([a-z_]+?)(?:\s*\(not issued\))?$", low)
    if m:
        return ("stall_not_issued:" if not_issued else "stall:") + stall_reason(m.group(1))
    m = re.search(r"pcsamp_warps_issue_stalled_([a-z_]+)", low)
    if m:
        r = m.group(1)
        if r.endswith("_not_issued"):
            return "stall_not_issued:" + stall_reason(r[: -len("_not_issued")])
        return "stall:" + stall_reason(r)
    if "warp stall sampling" in low or low in ("smsp__pcsamp_sample_count",):
        return "samples_not_issued" if ("not-issued" in low or not_issued) else "samples"
    if {"l2", "sectors", "global"} <= ts:
        return "l2_sectors_global" + ("_excessive" if "excessive" in ts else "_ideal" if "ideal" in ts else "")
    if {"wavefronts", "shared"} <= ts and ({"l1"} & ts or "memory" in ts):
        return "l1_wavefronts_shared" + ("_excessive" if "excessive" in ts else "_ideal" if "ideal" in ts else "")
    if {"conflicts", "shared"} <= ts:
        return "l1_conflicts_shared_nway"
    if {"requests", "global"} <= ts and ("l1" in ts or "tag" in ts):
        return "l1_requests_global"
    if "divergent" in ts and ("branches" in ts or "branch" in ts):
        return "divergent_branches"
    if low in ("avg. threads executed", "avg threads executed"):
        return "avg_threads"
    if low in ("predicated-on thread instructions executed",) or low.endswith("thread_inst_executed_pred_on"):
        return "pred_on_thread_inst_executed"
    if low in ("thread instructions executed", "smsp__sass_thread_inst_executed", "thread_inst_executed"):
        return "thread_inst_executed"
    if low in ("instructions executed", "inst_executed", "smsp__sass_inst_executed"):
        return "inst_executed"
    return h


_LINE_HEADS = {"line no", "line", "# line", "line number", "#"}
_ADDR_HEADS = {"address", "# address"}
_FILE_ROWS = {"file path", "file name", "file", "source file"}
_KERNEL_ROWS = {"function name", "kernel name"}


def parse_source(text: str, kernel: str | None = None) -> tuple[list[LineCounters], list[SassCounters]]:
    """`ncu --page source --csv --print-source cuda,sass` (or `cuda`, or `sass`).

    The page is a sequence of blocks: "File Path"/"Function Name"/"Kernel Name" rows, then a
    header ("Line No","Source","Address","Source",counters... or "Address","Source",...), then
    line rows (a line number, address "-" or empty) each followed by its instruction rows.
    """
    rows = csv_rows(text)
    lines: list[LineCounters] = []
    sass: list[SassCounters] = []
    file, kname, header = "", "", None
    li = ai = csrc = ssrc = None
    metric_cols: list[tuple[int, str]] = []
    current: LineCounters | None = None
    seen_kernel_row = False
    for r in rows:
        first = r[0].strip()
        low = first.lower()
        filled = [c for c in r if c.strip()]
        if low in _FILE_ROWS and len(filled) <= 2:
            file = r[1].strip() if len(r) > 1 else ""
            current = None
            continue
        if low in _KERNEL_ROWS and len(filled) <= 2:
            kname = r[1].strip() if len(r) > 1 else ""
            seen_kernel_row = True
            header, current = None, None
            continue
        if low in _LINE_HEADS | _ADDR_HEADS and len(r) >= 2 and r[1].strip().lower() == "source":
            header = [h.strip() for h in r]
            li = ai = csrc = ssrc = None
            metric_cols, used = [], set()
            for i, h in enumerate(header):
                hl = h.lower()
                if hl in _LINE_HEADS and li is None:
                    li = i
                elif hl in _ADDR_HEADS and ai is None:
                    ai = i
                elif hl == "source":
                    if ai is not None and (li is None or ai > li):
                        ssrc = i if ssrc is None else ssrc
                    else:
                        csrc = i if csrc is None else csrc
                else:
                    key = canonical_column(h)
                    if key not in used:  # ncu repeats some columns ("Instructions Executed")
                        used.add(key)
                        metric_cols.append((i, key))
            current = None
            continue
        if header is None:
            continue
        if seen_kernel_row and kernel and not kernel_matches(kname, kernel):
            continue
        counters = {}
        for i, key in metric_cols:
            v = parse_number(r[i]) if i < len(r) else None
            if v is not None:
                counters[key] = v
        lcell = r[li].strip() if li is not None and li < len(r) else ""
        acell = r[ai].strip() if ai is not None and ai < len(r) else ""
        if lcell.isdigit():
            current = LineCounters(file, int(lcell), r[csrc] if csrc is not None and csrc < len(r) else "",
                                   counters, kname)
            lines.append(current)
            if acell.lower().startswith("0x"):  # a line row that also carries its first instruction
                sass.append(SassCounters(int(acell, 16), _cell(r, ssrc), current.line, file, dict(counters), kname))
        elif acell.lower().startswith("0x"):
            sass.append(SassCounters(int(acell, 16), _cell(r, ssrc), current.line if current else None,
                                     file if current else "", counters, kname))
        elif lcell:  # "..." elides unattributed source
            current = None
    if kernel and seen_kernel_row and not lines and not sass:
        names = {r[1].strip() for r in rows if r and r[0].strip().lower() in _KERNEL_ROWS and len(r) > 1}
        if len(names) == 1:  # one kernel on the page: it is the profiled one, whatever its spelling
            return parse_source(text, None)
        raise NcuError(f"source page: no block for kernel {kernel!r} (blocks: {', '.join(sorted(names))})")
    return lines, sass


def _cell(r: list[str], i: int | None) -> str:
    return r[i] if i is not None and i < len(r) else ""


def load_pages(folder: str | Path, kernel: str | None = None, launch: str | None = None,
               verdict: Any = None) -> NcuResult:
    """An NcuResult from exported CSV pages in `folder`: raw.csv, details.csv, source.csv
    (cuda,sass) and sass.csv (sass only); the missing ones are noted, not fatal, but the raw
    page is required."""
    d = Path(folder)
    raw_path = d / "raw.csv"
    if not raw_path.is_file():
        raise NcuError(f"{raw_path}: missing (export it with `ncu -i REPORT --csv --page raw`)")
    res = result_from_pages(raw_path.read_text(errors="replace"),
                            _read(d / "details.csv"), _read(d / "source.csv"), _read(d / "sass.csv"),
                            kernel=kernel, launch=launch)
    res.verdict = verdict
    for name in ("details.csv", "source.csv"):
        if not (d / name).is_file():
            res.notes.append(f"{d / name}: missing")
    return res


def _read(p: Path) -> str | None:
    return p.read_text(errors="replace") if p.is_file() else None


def result_from_pages(raw: str, details: str | None = None, source: str | None = None,
                      sass: str | None = None, kernel: str | None = None, launch: str | None = None
                      ) -> NcuResult:
    page = parse_raw(raw, kernel, launch)
    res = NcuResult(kernel=page.kernel, launch_id=page.launch_id, raw=page.metrics, info=page.info)
    want = kernel or base_name(page.kernel)
    if details:
        try:
            res.details, res.rules = parse_details(details, None, page.launch_id)
        except NcuError as e:
            res.notes.append(str(e))
    if source:
        res.source_lines, res.sass_lines = parse_source(source, want)
    if sass:
        _, only_sass = parse_source(sass, want)
        if not res.sass_lines:
            res.sass_lines = only_sass
    return res


# ---------------------------------------------------------------- running ncu

def find_ncu() -> str | None:
    hit = shutil.which("ncu")
    if hit:
        return hit
    for pat in NCU_GLOBS:
        found = sorted(glob.glob(pat))
        if found:
            return found[-1]
    return None


def ncu_problem() -> str | None:
    """Why ncu cannot run here (None when it can be tried)."""
    return None if find_ncu() else "Nsight Compute (ncu) not found on PATH or under /opt/nvidia/nsight-compute"


def ncu_command(target_cmd: list[str], kernel_regex: str, sections=DEFAULT_SECTIONS, launch_skip: int = 0,
                launch_count: int = 1, out_prefix: str = "kernelpro", ncu: str = "ncu") -> list[str]:
    """The ncu command line profiling `launch_count` launches of the matching kernel."""
    if not target_cmd:
        raise ValueError("ncu_command needs a target command")
    if not kernel_regex:
        raise ValueError("ncu_command needs a kernel name or regex")
    k = kernel_regex if kernel_regex.startswith(("regex:", "mangled:", "demangled:")) else f"regex:{kernel_regex}"
    cmd = [ncu, "--clock-control", "none", "--target-processes", "all", "-k", k,
           "--launch-skip", str(int(launch_skip)), "-c", str(int(launch_count))]
    for s in sections:
        cmd += ["--section", s]
    cmd += ["--import-source", "yes", "-f", "-o", str(out_prefix)]
    return cmd + list(target_cmd)


def export_commands(report: str, ncu: str = "ncu") -> dict[str, list[str]]:
    """Commands that print each page of a report as CSV, by file name."""
    base = [ncu, "-i", report, "--csv"]
    return {
        "raw.csv": base + ["--page", "raw", "--print-units", "base"],
        "details.csv": base + ["--page", "details", "--print-details", "all"],
        "source.csv": base + ["--page", "source", "--print-source", "cuda,sass"],
        "sass.csv": base + ["--page", "source", "--print-source", "sass"],
    }


def kernel_regex_for(name: str) -> str:
    """A regex for ncu's -k that matches the kernel's function name and nothing longer."""
    return f"regex:^{re.escape(name)}\\b"


def _run(cmd: list[str], timeout_s: float, cwd: str | None = None) -> str:
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, cwd=cwd, check=False,
                           stdin=subprocess.DEVNULL, env=child_env())
    except subprocess.TimeoutExpired:
        raise NcuError(f"{cmd[0]}: no answer after {timeout_s:.0f} s: {' '.join(cmd[:12])} ...") from None
    except OSError as e:
        raise NcuError(f"{cmd[0]}: cannot run: {e}") from None
    if p.returncode != 0:
        tail = " | ".join((p.stderr or p.stdout or "").strip().splitlines()[-8:])
        raise NcuError(f"{os.path.basename(cmd[0])} exited {p.returncode}: {tail or 'no output'}")
    return p.stdout


def profile_kernel(target_cmd: list[str], kernel: str, out_dir: str | Path, sections=DEFAULT_SECTIONS,
                   launch_skip: int = 0, launch_count: int = 1, ncu: str | None = None,
                   timeout_s: float = 300.0, verdict: Any = None, kernel_regex: str | None = None) -> NcuResult:
    """Profile one launch of `kernel` run by `target_cmd` (e.g. `python -m
    kernelpro.profilers.runtime.runner --once JOB.json`), export the pages into `out_dir`
    (raw.csv, details.csv, source.csv, sass.csv beside report.ncu-rep) and parse them."""
    exe = ncu or find_ncu()
    if not exe:
        raise NcuError(ncu_problem() or "ncu not found")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    prefix = out / "report"
    cmd = ncu_command(target_cmd, kernel_regex or kernel_regex_for(kernel), sections, launch_skip,
                      launch_count, str(prefix), exe)
    log = _run(cmd, timeout_s)
    (out / "ncu.log").write_text(log)
    report = str(prefix) + ".ncu-rep"
    if not Path(report).is_file():
        raise NcuError(f"ncu wrote no report {report}: no launch of {kernel!r} matched "
                       f"(ncu said: {' | '.join(log.strip().splitlines()[-4:])})")
    for name, c in export_commands(report, exe).items():
        try:
            (out / name).write_text(_run(c, timeout_s))
        except NcuError as e:
            if name == "raw.csv":
                raise
            (out / name).unlink(missing_ok=True)
            note = f"export {name} failed: {e}"
            (out / "export_notes.txt").open("a").write(note + "\n")
    res = load_pages(out, kernel=kernel, verdict=verdict)
    res.report = report
    notes = out / "export_notes.txt"
    if notes.is_file():
        res.notes += notes.read_text().splitlines()
    return res
