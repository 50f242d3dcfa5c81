"""`kernelpro spec init|check` and `kernelpro bench`, registered by profilers/cli.py."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def _fail(msg: str, code: int = 2) -> int:
    print(f"kernelpro: {msg}", file=sys.stderr)
    return code


_fail_line = _fail


# --- spec ---------------------------------------------------------------------------------------
def register_spec(sub) -> None:
    p = sub.add_parser("spec", help="launch specs: make a kernel runnable (init, check)")
    ss = p.add_subparsers(dest="spec_command", metavar="ACTION")
    i = ss.add_parser("init", help="infer <stem>.kernelpro.toml from the kernel and its host code, with the kernel "
                                   "as it is now as the reference")
    i.add_argument("file", help="the .cu file (or a header; the .cu files beside it that include it are read too)")
    i.add_argument("--kernel", help="the __global__ function (default: the file's only kernel)")
    i.add_argument("--force", action="store_true", help="overwrite an existing spec (and its reference snapshot)")
    i.add_argument("--reference", metavar="FILE.py:FUNCTION",
                   help="a Python reference instead of the kernel as it is now (no snapshot is made)")
    i.add_argument("--json", action="store_true", help="print what was inferred, and where each value came from, "
                                                       "as JSON")
    i.set_defaults(func=cmd_spec_init)
    c = ss.add_parser("check", help="validate a spec against its kernel: signature, reference, memory, and what "
                                    "the analysis proves about reads past a buffer and unwritten outputs")
    c.add_argument("spec", help="the .kernelpro.toml file")
    c.add_argument("--json", action="store_true", help="errors and warnings as JSON")
    c.set_defaults(func=cmd_spec_check)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def cmd_spec_init(args) -> int:
    from .infer import InferError, infer_spec, summary, write_spec

    cu = Path(args.file)
    if not cu.is_file():
        return _fail(f"{cu}: no such file")
    try:
        plan = infer_spec(cu, args.kernel, python_reference=args.reference)
    except InferError as e:
        return _fail(f"{cu}: {e}")
    try:
        write_spec(plan, force=args.force)
    except FileExistsError:
        return _fail(f"{plan.spec_path} exists; pass --force to overwrite it")
    except OSError as e:
        return _fail(f"cannot write {plan.spec_path}: {e.strerror or e}")
    if args.json:
        print(json.dumps({**plan.to_json(), "written": True}, indent=2))
        return 0
    print(summary(plan))
    print(f"check it with `kernelpro spec check {plan.spec_path}`")
    return 0


def cmd_spec_check(args) -> int:
    from .spec import SpecError, load_spec
    from .speccheck import check_spec

    try:
        spec = load_spec(args.spec)
    except SpecError as e:
        if args.json:
            print(json.dumps({"ok": False, "errors": [str(e)], "warnings": []}))
        return _fail(str(e))
    errors, warnings = check_spec(spec)
    warnings = list(spec.warnings) + warnings
    if args.json:
        print(json.dumps({"ok": not errors, "errors": errors, "warnings": warnings}, indent=2))
        return 1 if errors else 0
    for w in warnings:
        print(f"{args.spec}: warning: {w}", file=sys.stderr)
    for e in errors:
        print(f"{args.spec}: error: {e}", file=sys.stderr)
    if errors:
        return 1
    steps = ", ".join(s.kernel for s in spec.launches)
    print(f"{args.spec}: OK ({spec.kernel}; sizes {', '.join(spec.sizes)}; launches {steps})")
    return 0


# --- bench --------------------------------------------------------------------------------------
def register_bench(sub) -> None:
    p = sub.add_parser("bench", help="run a kernel on the GPU: time, bandwidth, FLOP rate, energy, error")
    p.add_argument("file", help="the .cu file (its launch spec <stem>.kernelpro.toml beside it)")
    p.add_argument("--kernel", help="the kernel (picks <stem>.<kernel>.kernelpro.toml when present)")
    p.add_argument("--spec", help="the launch spec, when it is not beside the file")
    p.add_argument("--arch", default=None, help="target architecture (default: the device's)")
    p.add_argument("--sizes", help="comma-separated size names (default: all)")
    p.add_argument("--energy", action=argparse.BooleanOptionalAction, default=True, help="measure energy (NVML)")
    p.add_argument("--ncu", action="store_true", help="also profile one launch with Nsight Compute for advice")
    p.add_argument("--sanitize", action=argparse.BooleanOptionalAction, default=None,
                   help="run Compute Sanitizer (memcheck, racecheck, initcheck) on one launch "
                        "(default: when compute-sanitizer is found)")
    p.add_argument("--timeout", type=float, default=60.0, metavar="S", help="stop a run after S seconds")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_bench)


def cmd_bench(args) -> int:
    from .measure import gpu_problem

    def _fail(msg: str, kind: str = "error") -> int:  # with --json, the error as a JSON object too
        if args.json:
            print(json.dumps({"ok": False, "error": msg, "kind": kind}))
        return _fail_line(msg)

    cu = Path(args.file)
    if not cu.is_file():
        return _fail(f"{cu}: no such file")
    problem = gpu_problem()
    if problem:
        return _fail(f"no GPU: {problem}", "no-gpu")
    from ..compile import CompileOptions
    from .measure import measure_spec
    from .spec import SpecError, find_spec, load_spec
    from .worker import shared_pool

    spec_path = Path(args.spec) if args.spec else find_spec(cu, args.kernel)
    if spec_path is None:
        return _fail(f"no launch spec beside {cu}: run `kernelpro spec init {cu} --kernel {args.kernel or 'NAME'}`")
    try:
        spec = load_spec(spec_path)
    except SpecError as e:
        return _fail(str(e))
    if args.kernel and spec.kernel != args.kernel:
        return _fail(f"{spec_path} describes kernel {spec.kernel!r}, not {args.kernel!r}")
    pool = shared_pool(timeout_s=args.timeout)
    arch = args.arch
    if arch is None:
        try:
            cc = pool.call({"op": "device"})["compute_capability"]
            arch = "sm_" + cc.replace(".", "")
        except Exception as e:
            return _fail(f"the GPU worker did not start: {e}")
    sizes = [s.strip() for s in args.sizes.split(",")] if args.sizes else None
    from .sanitizer import find_sanitizer

    sanitize = args.sanitize if args.sanitize is not None else find_sanitizer() is not None
    out = measure_spec(cu, spec, CompileOptions(arch=arch), energy=args.energy, sizes=sizes, pool=pool, ncu=args.ncu,
                       sanitize=sanitize)
    res = out["result"]
    if args.json:
        print(json.dumps({"file": str(cu), "spec": str(spec_path), "result": res.to_json(), "measured": out["measured"],
                          "ceilings": out["ceilings"], "advice": [a.to_json() for a in out["advice"]],
                          "notes": out["notes"]}, indent=2, default=str))
    else:
        print_bench(spec, out)
    return 0 if res.ok else 1


def print_bench(spec, out: dict, console=None) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    c = console or Console(highlight=False, soft_wrap=True)
    res, ceil = out["result"], out["ceilings"] or {}
    dev = res.device.get("name", "GPU")
    head = f"[bold]{spec.kernel}[/bold] on {dev}"
    if ceil:
        head += (f"  (measured ceilings: {ceil['dram_gbs']:.0f} GB/s DRAM, {ceil['fp32_gflops'] / 1e3:.1f} TFLOP/s FP32,"
                 f" {ceil.get('fp16_gflops', 0) / 1e3:.1f} TFLOP/s FP16)")
    c.print(head)
    if out["measured"]:
        t = Table(show_edge=False, pad_edge=False)
        for col in ("size", "time", "spread", "bandwidth", "GFLOP/s", "energy", "power", "error", "of tol", "bound"):
            t.add_column(col, justify="left" if col in ("size", "bound") else "right")
        for r in out["measured"]:
            pct = lambda x: "" if x is None else f" ({x * 100:.0f}%)"  # noqa: E731
            bw = "-" if r["bandwidth_gbs"] is None else f"{r['bandwidth_gbs']:.0f} GB/s{pct(r['bw_fraction'])}"
            gf = "-" if r["gflops"] is None else f"{r['gflops']:.0f}{pct(r['flop_fraction'])}"
            energy = "-" if r.get("energy_uj") is None else f"{r['energy_uj']:.1f} uJ ±{r['energy_uncertainty_pct']:.0f}%"
            t.add_row(r["size"], f"{r['time_us']:.2f} us" if r["time_us"] else "-",
                      f"{r['spread_pct']:.1f}% of {r['reps']}" if r["reps"] else "-", bw, gf, energy,
                      "-" if r.get("power_w") is None else f"{r['power_w']:.0f} W",
                      error_text(r.get("rel_l2")), tolerance_text(r.get("tol_ratio")), r["bound"] or "-")
        c.print(t)
    if res.ok and res.sizes:
        checked = sum(s.checked for s in res.sizes)
        variants = sorted({v for s in res.sizes for v in s.variants} - {"spec"})
        c.print(Text(f"checked: {len(res.sizes) + len(res.check_sizes)} sizes"
                     + (f" (with {', '.join(s.size for s in res.check_sizes)})" if res.check_sizes else "")
                     + (f", inputs also {', '.join(variants)}" if variants else "")
                     + f", {checked} timed launches over {max(s.sets for s in res.sizes)} input sets; "
                       f"error = ||out - ref|| / ||ref||, of tol = the worst element's share of its tolerance",
                     style="dim"))
    if not res.ok:
        c.print(Text(f"FAILED: {res.failure}", style="bold red"))
    for a in out["advice"]:
        c.print(Text(f"{a.severity.value} [{a.rule}] {a.message}", style="yellow" if a.severity.value != "info" else "cyan"))
        c.print(Text(f"    fix: {a.remedy}", style="dim"))
    for n in out["notes"]:
        c.print(Text(f"note: {n}", style="dim"))


def error_text(rel_l2) -> str:
    """The normwise relative error: not inflated by elements whose reference is near zero."""
    return "-" if rel_l2 is None else f"{rel_l2:.1e}"


def tolerance_text(ratio) -> str:
    """The worst element's error as a share of what the tolerance allows there (<= 100% passes)."""
    if ratio is None or ratio != ratio:
        return "-"
    return ">1000%" if ratio > 10 else f"{ratio * 100:.0f}%"
