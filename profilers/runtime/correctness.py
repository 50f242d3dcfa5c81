"""Correctness of kernel outputs against a reference, hard to fool.

Outputs are poisoned before a run (every byte 0xFF: a NaN for every float type, -1 / max for
ints; see `poison`). `compare` then counts elements still holding the poison (unwritten),
other NaN/Inf (nonfinite), and checks both a normwise relative error
||out-ref||_2 / ||ref||_2 <= rtol (+ atol*sqrt(N)/||ref||) and every element
|out-ref| <= atol + rtol*|ref|. Integer outputs must match exactly. A reference that is all
zeros or nearly constant gets a warning that the check is weak; a tolerance under which an
all-zero or constant output would pass most elements gets a warning too, and then the output
must also be closer to the reference than half of the reference's own spread.

The arrays may be numpy (host) or CuPy (device) arrays: the same code runs on either, in
float64, so a large output is checked on the GPU without a copy to the host.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

POISON_BYTE = 0xFF
NO_REFERENCE = "no reference: correctness not checked against a reference"

# Default tolerances (docs/evaluation.md, "Tolerances"): rtol = max(BASE_RTOL, 4 u sqrt(K)) for the
# output dtype's unit roundoff u and the reduction length K (rounding errors of a sum of K terms grow
# like sqrt(K) u with high probability: Higham & Mary 2019); atol = rtol * rms(reference) + the dtype's
# smallest normal number, so an element near zero is judged against the size of the values whose
# cancellation produced it, not against an absolute number that may exceed every reference value.
UNIT_ROUNDOFF = {"float64": 2.0 ** -53, "float32": 2.0 ** -24, "float16": 2.0 ** -11, "bfloat16": 2.0 ** -8}
BASE_RTOL = {"float64": 1e-9, "float32": 1e-4, "float16": 1e-2, "bfloat16": 2e-2}
SMALLEST_NORMAL = {"float64": 2.2250738585072014e-308, "float32": 1.1754943508222875e-38,
                   "float16": 6.103515625e-05, "bfloat16": 1.1754943508222875e-38}
SQRT_K_FACTOR = 4.0
WEAK_FRACTION = 0.5  # an all-zero or constant output passing at this share of the elements: a weak check
SPREAD_FRACTION = 0.5  # then the error must stay below this share of the reference's spread
# (a constant output's error is the whole spread and an all-zero one's at least that; half of it
# leaves room for honest rounding where the values are large against their spread, which 10%
# did not: an honest kernel on inputs scaled down by 2**-6 failed it on the H200)


@dataclass
class Tolerance:
    """|out - ref| <= atol + atol_rms * rms(ref) + rtol * |ref| at every element."""

    rtol: float
    atol: float
    atol_rms: float = 0.0
    note: str = ""  # how it was chosen, for messages

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict | None, rtol: float = 1e-4, atol: float = 1e-6) -> "Tolerance":
        d = d or {}
        return cls(float(d.get("rtol", rtol)), float(d.get("atol", atol)), float(d.get("atol_rms", 0.0)),
                   str(d.get("note", "")))


def default_tolerance(dtype: str, reduction: int = 1, rtol: float | None = None, atol: float | None = None,
                      source: str = "") -> Tolerance:
    """The tolerance for outputs of `dtype` with reduction length `reduction`; given values win."""
    if dtype not in BASE_RTOL:
        return Tolerance(0.0, 0.0, 0.0, "integer outputs are compared exactly")
    k = max(1, int(reduction))
    u = UNIT_ROUNDOFF[dtype]
    scaled = SQRT_K_FACTOR * u * math.sqrt(k)
    parts = []
    if rtol is None:
        rtol = max(BASE_RTOL[dtype], scaled)
        why = f"4·u·sqrt({k}) = {scaled:.2g}" if scaled > BASE_RTOL[dtype] else f"the {dtype} floor"
        parts.append(f"rtol {rtol:.3g} (default for {dtype} outputs with reduction length {k}"
                     f"{' ' + source if source else ''}: max({BASE_RTOL[dtype]:g}, 4·u·sqrt(K)), here {why})")
    else:
        parts.append(f"rtol {rtol:g} (from the spec)")
    if atol is None:
        parts.append(f"atol {SMALLEST_NORMAL[dtype]:.3g} + rtol x rms(reference) (default: an element near zero is "
                     "judged against the size of the reference's values)")
        return Tolerance(float(rtol), SMALLEST_NORMAL[dtype], float(rtol), "; ".join(parts))
    parts.append(f"atol {atol:g} (from the spec)")
    return Tolerance(float(rtol), float(atol), 0.0, "; ".join(parts))


@dataclass
class Check:
    ok: bool
    reason: str
    max_abs: float = 0.0
    max_rel: float = 0.0  # where the relative part of the tolerance governs (|ref| >= atol / rtol)
    rel_l2: float = 0.0
    unwritten: int = 0
    nonfinite: int = 0
    mismatched: int = 0  # elements outside the tolerance (unwritten and nonfinite included)
    tol_ratio: float = 0.0  # the worst element's error over its allowed error (<= 1 passes)
    weak: str = ""  # why the tolerance alone cannot tell a constant output from the right one
    atol_eff: float = 0.0  # the absolute tolerance used (atol + atol_rms * rms(ref))

    def to_dict(self) -> dict:
        return asdict(self)


def array_module(a):
    """numpy, or cupy for a CuPy array."""
    if type(a).__module__.split(".")[0] == "cupy":
        import cupy

        return cupy
    import numpy

    return numpy


def poison(a):
    """Fill an array in place with the poison pattern (all bytes 0xFF); returns it."""
    import numpy as np

    if not a.flags.c_contiguous:
        raise ValueError("poison needs a C-contiguous array")
    a.reshape(-1).view(np.uint8).fill(POISON_BYTE)
    return a


def poison_mask(a):
    """True where every byte of an element is 0xFF (the element was never written)."""
    xp = array_module(a)
    a = xp.ascontiguousarray(a)
    if a.dtype.itemsize not in (1, 2, 4, 8):
        return xp.zeros(a.shape, bool)
    u = a.view(f"u{a.dtype.itemsize}")
    return u == (1 << (8 * a.dtype.itemsize)) - 1


def _to_array(x, xp=None):
    import numpy as np

    if type(x).__module__.split(".")[0] == "cupy":
        return x if xp is None or xp.__name__ == "cupy" else x.get()
    if hasattr(x, "detach"):  # torch tensor
        x = x.detach().cpu().numpy()
    x = np.asarray(x)
    return xp.asarray(x) if xp is not None and xp.__name__ == "cupy" else x


def _values(a, dtype: str | None):
    """float64 (or int64 for integer data) values; bfloat16 is stored as uint16."""
    import numpy as np

    if dtype == "bfloat16" and a.dtype == np.uint16:
        a = (a.astype(np.uint32) << 16).view(np.float32)
    if a.dtype.kind in "iub":
        return (a.astype(np.int64) if a.dtype != np.uint64 else a.astype(np.float64)), True
    return a.astype(np.float64), False


def _index(flat: int, shape: tuple[int, ...]) -> str:
    import numpy as np

    if not shape:
        return "[]"
    return "[" + ", ".join(str(int(i)) for i in np.unravel_index(int(flat), shape)) + "]"


def _fmt(v: float) -> str:
    return f"{v:.6g}"


def _unwritten_text(mask, label: str) -> str:
    xp = array_module(mask)
    u = int(mask.sum())
    if u == 0:
        return ""
    if mask.ndim >= 2 and mask.shape[0] > 1:
        rows = int(mask.reshape(mask.shape[0], -1).all(axis=1).sum())
        if rows:
            return f"{rows} rows unwritten: still {label}"
    flat = mask.reshape(-1)
    if flat.size > 1 and u < flat.size and bool(flat[-u:].all()):
        return f"the last {u} elements unwritten: still {label}"
    first = int(xp.argmax(flat))
    return f"{u} of {flat.size} elements unwritten: still {label}, first at {_index(first, mask.shape)}"


def _weak_reference(r, finite) -> str:
    vals = r[finite]
    if vals.size == 0:
        return "the reference has no finite values: the check is weak"
    if not bool(vals.any()):
        return "the reference is all zeros: the check is weak (an all-zero output passes)"
    if vals.size > 1:
        spread = float(vals.max() - vals.min())
        scale = float(abs(vals).max())
        if spread <= 1e-6 * scale:
            return f"the reference is constant (all ~{_fmt(float(vals[0]))}): the check is weak"
    return ""


def _weak_tolerance(rf, finite_r, thr, n_finite: int) -> tuple[str, float, float]:
    """(warning, mean of the reference, its spread ||ref - mean||) when an all-zero or constant output
    would pass at WEAK_FRACTION of the finite elements; ("", mean, spread) otherwise."""
    xp = array_module(rf)
    mean = float(rf.sum()) / n_finite
    dev = xp.where(finite_r, rf - mean, 0.0)
    spread = float(xp.sqrt((dev * dev).sum()))
    zero = float(((xp.abs(rf) <= thr) & finite_r).sum()) / n_finite
    const = float(((xp.abs(dev) <= thr) & finite_r).sum()) / n_finite
    if spread == 0 or max(zero, const) < WEAK_FRACTION:
        return "", mean, spread
    what = (f"an all-zero output would pass at {zero:.0%} of the elements" if zero >= const else
            f"a constant output ({_fmt(mean)}) would pass at {const:.0%} of the elements")
    return (f"the tolerance is weak: {what}, so the error must also stay below {SPREAD_FRACTION:.0%} of the "
            f"reference's spread"), mean, spread


def compare(out, ref, rtol: float, atol: float, poisoned: bool = True, dtype: str | None = None, *,
            atol_rms: float = 0.0, note: str = "") -> Check:
    """Check one output against its reference; `dtype` "bfloat16" decodes uint16 storage.

    The allowed error at each element is atol + atol_rms * rms(ref) + rtol * |ref|; `note` says how the
    tolerance was chosen and is added to the reason of a failure."""
    import numpy as np

    xp = array_module(out)
    out, ref = _to_array(out), _to_array(ref, xp)
    xp = array_module(out)
    if out.shape != ref.shape:
        if out.size != ref.size:
            return Check(False, f"shape {out.shape} but the reference has shape {ref.shape}",
                         math.inf, math.inf, math.inf, tol_ratio=math.inf)
        ref = ref.reshape(out.shape)
    n = out.size
    if n == 0:
        return Check(True, "empty output")
    mask = poison_mask(out) if poisoned else xp.zeros(out.shape, bool)
    o, o_int = _values(out, dtype)
    r, r_int = _values(ref, dtype if ref.dtype == np.uint16 else None)
    integer = o_int and dtype not in ("float32", "float16", "bfloat16", "float64")
    label = "0xFF poison" if integer else "NaN poison"

    if integer:
        r = r if r_int else r.astype(np.float64)
        diff = xp.abs(o.astype(np.float64) - r.astype(np.float64))
        bad = o != r
        mask &= bad  # a -1 that the reference expects is not "unwritten"
        nonfinite_mask = xp.zeros(out.shape, bool)
        finite_r = xp.ones(out.shape, bool)
        if not r_int:
            finite_r = xp.isfinite(r)
            bad |= ~finite_r
        thr = xp.zeros(out.shape)
        atol_eff = 0.0
    else:
        finite_o, finite_r = xp.isfinite(o), xp.isfinite(r)
        mask &= finite_r
        both = ~finite_r & ((xp.isnan(o) & xp.isnan(r)) | (o == r))  # matching NaN / Inf
        nonfinite_mask = ~finite_o & ~mask & finite_r
        ok_fin = finite_o & finite_r
        diff = xp.where(ok_fin, xp.abs(xp.where(ok_fin, o, 0) - xp.where(ok_fin, r, 0)), np.inf)
        diff[both] = 0.0
        n_finite = int(finite_r.sum())
        rf0 = xp.where(finite_r, r, 0.0)
        rms = float(xp.sqrt((rf0 * rf0).sum() / n_finite)) if n_finite else 0.0
        atol_eff = atol + atol_rms * rms
        thr = atol_eff + rtol * xp.abs(rf0)
        bad = ~both & (diff > thr)
        bad |= ~finite_r & ~both

    unwritten, nonfinite, mismatched = int(mask.sum()), int(nonfinite_mask.sum()), int(bad.sum())
    rf = xp.where(finite_r, r, 0).astype(np.float64)
    df = xp.where(finite_r, diff, 0).astype(np.float64)
    ref_norm = float(xp.sqrt(xp.sum(rf * rf)))
    diff_norm = float(xp.sqrt(xp.sum(df * df))) if bool(xp.isfinite(df).all()) else math.inf
    rel_l2 = diff_norm / ref_norm if ref_norm > 0 else (0.0 if diff_norm == 0 else math.inf)
    max_abs = float(diff.max()) if n else 0.0
    governs = finite_r & (rf != 0) & (rtol * xp.abs(rf) >= atol_eff)  # where the relative part decides
    max_rel = float((diff[governs] / xp.abs(rf[governs])).max()) if bool(governs.any()) else 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = xp.where(thr > 0, diff / xp.where(thr > 0, thr, 1.0), xp.where(diff > 0, np.inf, 0.0))
    tol_ratio = float(xp.where(finite_r, ratio, 0.0).max()) if n else 0.0
    norm_ok = diff_norm <= rtol * ref_norm + atol_eff * math.sqrt(n)
    weak, guard_ok, spread = "", True, 0.0
    if not integer and int(finite_r.sum()):
        weak, _mean, spread = _weak_tolerance(rf, finite_r, thr, int(finite_r.sum()))
        guard_ok = not weak or diff_norm <= SPREAD_FRACTION * spread
    ok = mismatched == 0 and norm_ok and guard_ok

    weak_ref = _weak_reference(r.astype(np.float64) if integer else r, finite_r)
    stats = (f"rel_l2 {_fmt(rel_l2)}, max_abs {_fmt(max_abs)}, worst element at {_fmt(tol_ratio)} of its tolerance "
             f"over {n} elements")
    warnings = [w for w in (weak_ref, weak) if w]
    if ok:
        reason = f"ok: {stats}" + "".join(f"; warning: {w}" for w in warnings)
        return Check(True, reason, max_abs, max_rel, rel_l2, 0, 0, 0, tol_ratio, weak, atol_eff)
    parts = []
    if mismatched:
        first = int(xp.argmax(bad.reshape(-1)))
        got = o.reshape(-1)[first]
        got_s = "NaN (unwritten)" if bool(mask.reshape(-1)[first]) else _fmt(float(got))
        if integer:
            got_s = "0xFF.. poison (unwritten)" if bool(mask.reshape(-1)[first]) else str(int(got))
        exp = r.reshape(-1)[first]
        exp_s = str(int(exp)) if integer and r_int else _fmt(float(exp))
        head = f"element {_index(first, out.shape)} = {got_s}, expected {exp_s}"
        extra = _unwritten_text(mask, label)
        if extra:
            head += f" ({extra})"
        parts.append(head)
        tol = ("differ (integers must match exactly)" if integer else
               f"outside atol {atol_eff:.3g} + rtol {rtol:g} * |ref|")
        parts.append(f"{mismatched} of {n} elements {tol}")
    if nonfinite:
        parts.append(f"{nonfinite} NaN/Inf computed")
    if not norm_ok and not integer:
        parts.append(f"rel_l2 {_fmt(rel_l2)} > rtol {rtol:g}")
    if not guard_ok:
        parts.append(f"the output is no better than a constant: ||out - ref|| = {_fmt(diff_norm)} is above "
                     f"{SPREAD_FRACTION:.0%} of the reference's spread ||ref - mean|| = {_fmt(spread)}")
    parts.append(stats)
    parts += [f"warning: {w}" for w in warnings]
    if note and not integer:
        parts.append(f"tolerance: {note}")
    return Check(False, "; ".join(parts), max_abs, max_rel, rel_l2, unwritten, nonfinite, mismatched, tol_ratio,
                 weak, atol_eff)


def check_written(out, poisoned: bool = True, dtype: str | None = None) -> Check:
    """Without a reference: only unwritten (poison) and NaN/Inf elements are caught."""
    out = _to_array(out)
    xp = array_module(out)
    mask = poison_mask(out) if poisoned else xp.zeros(out.shape, bool)
    o, integer = _values(out, dtype)
    integer = integer and dtype not in ("float32", "float16", "bfloat16", "float64")
    nonfinite = 0 if integer else int((~xp.isfinite(o) & ~mask).sum())
    unwritten = int(mask.sum())
    parts = []
    if unwritten:
        parts.append(_unwritten_text(mask, "0xFF poison" if integer else "NaN poison"))
    if nonfinite:
        first = int(xp.argmax((~xp.isfinite(o) & ~mask).reshape(-1)))
        parts.append(f"{nonfinite} NaN/Inf computed, first at {_index(first, out.shape)}")
    ok = not parts
    return Check(ok, "; ".join(parts) or "all elements written and finite", unwritten=unwritten,
                 nonfinite=nonfinite, mismatched=unwritten + nonfinite,
                 max_abs=math.nan, max_rel=math.nan, rel_l2=math.nan, tol_ratio=math.nan)


def check_outputs(outs: dict, refs: dict | None, rtol: float, atol: float,
                  dtypes: dict | None = None, poisoned: bool | dict = True, *,
                  atol_rms: float = 0.0, note: str = "") -> Check:
    """All outputs of a run; the worst numbers and every failure's reason.

    refs None or empty: no reference; only poison and NaN/Inf are checked and the reason
    says so loudly. `poisoned` may be a dict per output (in/out buffers are not poisoned).
    """
    dtypes = dtypes or {}
    pois = (lambda k: poisoned.get(k, True)) if isinstance(poisoned, dict) else (lambda k: poisoned)
    if not outs:
        return Check(False, "no outputs to check")
    checks: dict[str, Check] = {}
    if not refs:
        for name, out in outs.items():
            checks[name] = check_written(out, pois(name), dtypes.get(name))
    else:
        extra = sorted(set(refs) - set(outs))
        if extra:
            return Check(False, f"the reference returned {extra[0]!r}, which is not an output "
                                f"(outputs: {', '.join(outs)})", math.inf, math.inf, math.inf, tol_ratio=math.inf)
        for name, out in outs.items():
            if name not in refs:
                checks[name] = Check(False, f"the reference returned no {name!r}", math.inf, math.inf, math.inf,
                                     tol_ratio=math.inf)
            else:
                checks[name] = compare(out, refs[name], rtol, atol, pois(name), dtypes.get(name),
                                       atol_rms=atol_rms, note=note)
    ok = all(c.ok for c in checks.values())
    single = len(checks) == 1
    reasons = [c.reason if single else f"{k}: {c.reason}" for k, c in checks.items() if not c.ok or not refs]
    if ok and refs:
        reasons = [c.reason if single else f"{k}: {c.reason}" for k, c in checks.items()]
    reason = "; ".join(reasons)
    if not refs:
        reason = f"WARNING: {NO_REFERENCE} ({reason})"
    vals = list(checks.values())
    worst = lambda f: max((getattr(c, f) for c in vals if not math.isnan(getattr(c, f))), default=math.nan)  # noqa: E731
    weak = "; ".join(f"{k}: {c.weak}" if not single else c.weak for k, c in checks.items() if c.weak)
    return Check(ok, reason, worst("max_abs"), worst("max_rel"), worst("rel_l2"),
                 sum(c.unwritten for c in vals), sum(c.nonfinite for c in vals), sum(c.mismatched for c in vals),
                 worst("tol_ratio"), weak, worst("atol_eff"))


# --- the quick check of timed launches ---------------------------------------------------------
# compare() builds messages and so synchronises; a timed launch is checked with these two instead:
# `thresholds` once per input set, then `count_bad` per launch, which with CuPy arrays only enqueues
# work on the GPU (its results are 0-d device arrays, read after the timing loop). Same rule as
# compare(): |out - ref| <= atol + atol_rms * rms(ref) + rtol * |ref|, NaN/Inf matched where the
# reference has them, integers exact; with a weak tolerance also ||out - ref|| <= half of the spread.

def thresholds(ref, dtype: str | None, tol: Tolerance, weak: bool = False) -> dict:
    import numpy as np

    xp = array_module(ref)
    r, _ = _values(ref, dtype if ref.dtype == np.uint16 else None)
    r = r.astype(np.float64)
    integer = dtype not in ("float32", "float16", "bfloat16", "float64")
    finite = xp.isfinite(r)
    rf = xp.where(finite, r, 0.0)
    n_finite = int(finite.sum())
    if integer:
        thr = xp.zeros(r.shape)
    else:
        rms = float(xp.sqrt((rf * rf).sum() / n_finite)) if n_finite else 0.0
        thr = tol.atol + tol.atol_rms * rms + tol.rtol * xp.abs(rf)
    spread = None
    if weak and n_finite and not integer:
        dev = xp.where(finite, rf - float(rf.sum()) / n_finite, 0.0)
        spread = float(xp.sqrt((dev * dev).sum()))
    return {"r": r, "thr": thr, "finite": finite, "nonfinite": None if bool(finite.all()) else ~finite,
            "spread": spread}


def count_bad(out, th: dict, dtype: str | None):
    """(elements outside the tolerance, ||out - ref||^2 or None): 0-d arrays, not synchronised on CuPy."""
    import numpy as np

    xp = array_module(out)
    o = _values(out, dtype)[0].astype(np.float64).reshape(th["r"].shape)
    with np.errstate(invalid="ignore"):  # NaN and Inf are judged below, not warned about
        d = xp.abs(o - th["r"])
    ok = d <= th["thr"]
    if th["nonfinite"] is not None:
        r = th["r"]
        ok = xp.where(th["nonfinite"], (o == r) | (xp.isnan(o) & xp.isnan(r)), ok)
    bad = xp.count_nonzero(~ok)
    sumsq = None
    if th["spread"] is not None:
        dd = xp.where(th["finite"], d, 0.0)
        sumsq = (dd * dd).sum()
    return bad, sumsq


def quick_verdict(bad, sumsq, th: dict) -> str | None:
    """None when a launch passed, else why (after the timing loop, when the counts can be read)."""
    nbad = int(bad)
    if nbad:
        return f"{nbad} of {th['r'].size} elements outside the tolerance"
    if sumsq is not None:
        err = math.sqrt(float(sumsq))
        if not err <= SPREAD_FRACTION * th["spread"]:
            return (f"the output is no better than a constant: ||out - ref|| = {_fmt(err)} is above "
                    f"{SPREAD_FRACTION:.0%} of the reference's spread {_fmt(th['spread'])}")
    return None
