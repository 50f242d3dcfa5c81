"""Correctness of kernel outputs against a reference, hard to fool.

Outputs are poisoned before a run (every byte 0xFF: a NaN for every float type, -1 / max for
ints; see `poison`). `compare` then counts elements still holding the poison (unwritten),
other NaN/Inf (nonfinite), and checks both a normwise relative error
||out-ref||_2 / ||ref||_2 <= rtol (+ atol*sqrt(N)/||ref||) and every element
|out-ref| <= atol + rtol*|ref|. Integer outputs must match exactly. A reference that is all
zeros or nearly constant gets a warning that the check is weak.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

POISON_BYTE = 0xFF
NO_REFERENCE = "no reference: correctness not checked against a reference"


@dataclass
class Check:
    ok: bool
    reason: str
    max_abs: float = 0.0
    max_rel: float = 0.0
    rel_l2: float = 0.0
    unwritten: int = 0
    nonfinite: int = 0
    mismatched: int = 0  # elements outside the tolerance (unwritten and nonfinite included)

    def to_dict(self) -> dict:
        return asdict(self)


def poison(a):
    """Fill an array in place with the poison pattern (all bytes 0xFF); returns it."""
    import numpy as np

    if not a.flags.c_contiguous:
        raise ValueError("poison needs a C-contiguous array")
    a.reshape(-1).view(np.uint8).fill(POISON_BYTE)
    return a


def poison_mask(a):
    """True where every byte of an element is 0xFF (the element was never written)."""
    import numpy as np

    a = np.ascontiguousarray(a)
    if a.dtype.itemsize not in (1, 2, 4, 8):
        return np.zeros(a.shape, bool)
    u = a.view(f"u{a.dtype.itemsize}")
    return u == np.iinfo(u.dtype).max


def _to_array(x):
    import numpy as np

    if hasattr(x, "detach"):  # torch tensor
        x = x.detach().cpu().numpy()
    return np.asarray(x)


def _bf16_to_f32(a):
    import numpy as np

    return (a.astype(np.uint32) << 16).view(np.float32)


def _values(a, dtype: str | None):
    """float64 (or int64 for integer data) values; bfloat16 is stored as uint16."""
    import numpy as np

    if dtype == "bfloat16" and a.dtype == np.uint16:
        a = _bf16_to_f32(a)
    if a.dtype.kind in "iub":
        return a.astype(np.int64) if a.dtype != np.uint64 else a.astype(np.float64), True
    return a.astype(np.float64), False


def _index(flat: int, shape: tuple[int, ...]) -> str:
    import numpy as np

    if not shape:
        return "[]"
    return "[" + ", ".join(str(int(i)) for i in np.unravel_index(flat, shape)) + "]"


def _fmt(v: float) -> str:
    return f"{v:.6g}"


def _unwritten_text(mask, label: str) -> str:
    import numpy as np

    u = int(mask.sum())
    if u == 0:
        return ""
    if mask.ndim >= 2 and mask.shape[0] > 1:
        rows = int(mask.reshape(mask.shape[0], -1).all(axis=1).sum())
        if rows:
            return f"{rows} rows unwritten: still {label}"
    flat = mask.reshape(-1)
    if flat.size > 1 and u < flat.size and flat[-u:].all():
        return f"the last {u} elements unwritten: still {label}"
    first = int(np.argmax(flat))
    return f"{u} of {flat.size} elements unwritten: still {label}, first at {_index(first, mask.shape)}"


def _weak_reference(r, finite) -> str:
    import numpy as np

    vals = r[finite]
    if vals.size == 0:
        return "the reference has no finite values: the check is weak"
    if not vals.any():
        return "the reference is all zeros: the check is weak (an all-zero output passes)"
    if vals.size > 1:
        spread = float(vals.max() - vals.min())
        scale = float(np.abs(vals).max())
        if spread <= 1e-6 * scale:
            return f"the reference is constant (all ~{_fmt(float(vals.flat[0]))}): the check is weak"
    return ""


def compare(out, ref, rtol: float, atol: float, poisoned: bool = True, dtype: str | None = None) -> Check:
    """Check one output against its reference; `dtype` "bfloat16" decodes uint16 storage."""
    import numpy as np

    out, ref = _to_array(out), _to_array(ref)
    if out.shape != ref.shape:
        if out.size != ref.size:
            return Check(False, f"shape {out.shape} but the reference has shape {ref.shape}",
                         math.inf, math.inf, math.inf)
        ref = ref.reshape(out.shape)
    n = out.size
    if n == 0:
        return Check(True, "empty output")
    mask = poison_mask(out) if poisoned else np.zeros(out.shape, bool)
    o, o_int = _values(out, dtype)
    r, r_int = _values(ref, dtype if ref.dtype == np.uint16 else None)
    integer = o_int and dtype not in ("float32", "float16", "bfloat16", "float64")
    label = "0xFF poison" if integer else "NaN poison"

    if integer:
        r = r if r_int else r.astype(np.float64)
        diff = np.abs(o.astype(np.float64) - r.astype(np.float64))
        bad = o != r
        mask &= bad  # a -1 that the reference expects is not "unwritten"
        nonfinite_mask = np.zeros(out.shape, bool)
        finite_r = np.ones(out.shape, bool)
        if not r_int:
            finite_r = np.isfinite(r)
            bad |= ~finite_r
    else:
        finite_o, finite_r = np.isfinite(o), np.isfinite(r)
        mask &= finite_r
        both = ~finite_r & ((np.isnan(o) & np.isnan(r)) | (o == r))  # matching NaN / Inf
        nonfinite_mask = ~finite_o & ~mask & finite_r
        ok_fin = finite_o & finite_r
        diff = np.where(ok_fin, np.abs(np.where(ok_fin, o, 0) - np.where(ok_fin, r, 0)), np.inf)
        diff[both] = 0.0
        bad = ~both & (diff > atol + rtol * np.abs(np.where(finite_r, r, 0)))
        bad |= ~finite_r & ~both

    unwritten, nonfinite, mismatched = int(mask.sum()), int(nonfinite_mask.sum()), int(bad.sum())
    rf = np.where(finite_r, r, 0).astype(np.float64)
    df = np.where(finite_r, diff, 0).astype(np.float64)
    ref_norm = float(np.sqrt(np.sum(rf * rf)))
    diff_norm = float(np.sqrt(np.sum(df * df))) if np.isfinite(df).all() else math.inf
    rel_l2 = diff_norm / ref_norm if ref_norm > 0 else (0.0 if diff_norm == 0 else math.inf)
    max_abs = float(diff.max()) if n else 0.0
    nz = finite_r & (rf != 0)
    max_rel = float((diff[nz] / np.abs(rf[nz])).max()) if nz.any() else (0.0 if max_abs == 0 else math.inf)
    norm_ok = diff_norm <= rtol * ref_norm + atol * math.sqrt(n)
    ok = mismatched == 0 and norm_ok

    weak = _weak_reference(r.astype(np.float64) if integer else r, finite_r)
    stats = f"rel_l2 {_fmt(rel_l2)}, max_abs {_fmt(max_abs)}, max_rel {_fmt(max_rel)} over {n} elements"
    if ok:
        reason = f"ok: {stats}" + (f"; warning: {weak}" if weak else "")
        return Check(True, reason, max_abs, max_rel, rel_l2, 0, 0, 0)
    parts = []
    if mismatched:
        first = int(np.argmax(bad.reshape(-1)))
        got = o.reshape(-1)[first]
        got_s = "NaN (unwritten)" if mask.reshape(-1)[first] else _fmt(float(got))
        if integer:
            got_s = "0xFF.. poison (unwritten)" if mask.reshape(-1)[first] else str(int(got))
        exp = r.reshape(-1)[first]
        exp_s = str(int(exp)) if integer and r_int else _fmt(float(exp))
        head = f"element {_index(first, out.shape)} = {got_s}, expected {exp_s}"
        extra = _unwritten_text(mask, label)
        if extra:
            head += f" ({extra})"
        parts.append(head)
        tol = "differ (integers must match exactly)" if integer else f"outside atol {atol:g} + rtol {rtol:g} * |ref|"
        parts.append(f"{mismatched} of {n} elements {tol}")
    if nonfinite:
        parts.append(f"{nonfinite} NaN/Inf computed")
    if not norm_ok and not integer:
        parts.append(f"rel_l2 {_fmt(rel_l2)} > rtol {rtol:g}")
    parts.append(stats)
    if weak:
        parts.append(f"warning: {weak}")
    return Check(False, "; ".join(parts), max_abs, max_rel, rel_l2, unwritten, nonfinite, mismatched)


def check_written(out, poisoned: bool = True, dtype: str | None = None) -> Check:
    """Without a reference: only unwritten (poison) and NaN/Inf elements are caught."""
    import numpy as np

    out = _to_array(out)
    mask = poison_mask(out) if poisoned else np.zeros(out.shape, bool)
    o, integer = _values(out, dtype)
    integer = integer and dtype not in ("float32", "float16", "bfloat16", "float64")
    nonfinite = 0 if integer else int((~np.isfinite(o) & ~mask).sum())
    unwritten = int(mask.sum())
    parts = []
    if unwritten:
        parts.append(_unwritten_text(mask, "0xFF poison" if integer else "NaN poison"))
    if nonfinite:
        first = int(np.argmax((~np.isfinite(o) & ~mask).reshape(-1)))
        parts.append(f"{nonfinite} NaN/Inf computed, first at {_index(first, out.shape)}")
    ok = not parts
    return Check(ok, "; ".join(parts) or "all elements written and finite", unwritten=unwritten,
                 nonfinite=nonfinite, mismatched=unwritten + nonfinite,
                 max_abs=math.nan, max_rel=math.nan, rel_l2=math.nan)


def check_outputs(outs: dict, refs: dict | None, rtol: float, atol: float,
                  dtypes: dict | None = None, poisoned: bool | dict = True) -> Check:
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
                                f"(outputs: {', '.join(outs)})", math.inf, math.inf, math.inf)
        for name, out in outs.items():
            if name not in refs:
                checks[name] = Check(False, f"the reference returned no {name!r}", math.inf, math.inf, math.inf)
            else:
                checks[name] = compare(out, refs[name], rtol, atol, pois(name), dtypes.get(name))
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
    return Check(ok, reason, worst("max_abs"), worst("max_rel"), worst("rel_l2"),
                 sum(c.unwritten for c in vals), sum(c.nonfinite for c in vals), sum(c.mismatched for c in vals))
