"""The shape an index's bound implies: its strides give the dimensions, outermost first.

`A[row * K + k]` bounded by `row < M` and `k < K` reaches M * K elements with strides K and 1: [M, K].
Strides that do not nest, or an offset, keep the shape flat; a partial last row rounds up; adjacent
constant dimensions are merged ([rows, 32, 32] is [rows, 1024]) unless every dimension is a constant.
"""
from __future__ import annotations

import math

from .affine import Poly, add, atoms, const, mul
from .extents import Atoms, Reach, Term, _divides


def dims(r: Reach, A: Atoms, samples: list[dict]) -> list[Poly]:
    """The shape (outermost first) that the strides of a reach suggest: [M, K] for `A[row * K + k]`; the
    flat [end] where the strides do not nest. Adjacent constant dimensions are merged ([rows, 1024])."""
    end = r.end
    by: list[tuple[Poly, Term]] = []
    for t in r.terms:
        if not any(_same(t.mult, s, A, samples) for s, _ in by):
            by.append((t.mult, t))

    def val(p):
        v = A.eval(p, samples[0])
        return v if v is not None else math.inf
    by.sort(key=lambda x: val(x[0]))
    strides = [s for s, _ in by]
    term_of = {i: t for i, (_, t) in enumerate(by)}
    if not strides or not _same(strides[0], const(1), A, samples):
        strides.insert(0, const(1))
        term_of = {i + 1: t for i, t in term_of.items()}
    while True:
        out, ok = [], True
        for i in range(len(strides) - 1):
            t = term_of.get(i)
            d = _quotient(strides[i + 1], strides[i], t, A, samples)
            if d is None:
                del strides[i + 1]
                term_of = {j if j <= i else j - 1: v for j, v in term_of.items() if j != i + 1}
                ok = False
                break
            out.append(d)
        if not ok:
            continue
        last = _ceil_quotient(end, strides[-1], term_of.get(len(strides) - 1), A, samples)
        if last is None and len(strides) > 1:
            strides.pop()
            continue
        if last is None:
            return [end]
        out.append(last)
        break
    shape = list(reversed(out))
    if all(_is_number(d) for d in shape):  # a shape of constants keeps its dimensions ([40, 48])
        return shape if len(shape) > 1 or shape else [end]
    merged: list[Poly] = []
    for d in shape:
        if merged and _is_number(d) and _is_number(merged[-1]):
            merged[-1] = const(merged[-1].get((), 0) * d.get((), 0))
        else:
            merged.append(d)
    while len(merged) > 1 and _is_number(merged[0]) and merged[0].get((), 0) == 1:
        merged.pop(0)
    return merged


def _is_number(p: Poly) -> bool:
    return all(not m for m in p)


def _same(a: Poly, b: Poly, A: Atoms, samples) -> bool:
    return a == b or all(A.eval(a, s) == A.eval(b, s) and A.eval(a, s) is not None for s in samples)


def _quotient(big: Poly, small: Poly, t: Term | None, A: Atoms, samples) -> Poly | None:
    """big / small when exact: the inner term's count (u + 1) where big = small * (u + 1), else a monomial
    division."""
    if t is not None:
        cand = add(t.bound.u, const(1))
        if _same(mul(small, cand), big, A, samples):
            return cand
    if len(small) == 1:
        (ms, cs), = small.items()
        out = {}
        for m, c in big.items():
            d = _divides(ms, m)
            if d is None or c % cs:
                return None
            out[d] = c // cs
        if _same(mul(out, small), big, A, samples):
            return out
    return None


def _ceil_quotient(end: Poly, s: Poly, t: Term | None, A: Atoms, samples) -> Poly | None:
    """ceil(end / s) as a polynomial when the outer term's count or a division gives it (rounding a last
    partial row up: `A[row * K]` reaches (M - 1) * K + 1 elements, shape [M, K])."""
    cands = []
    if t is not None:
        cands.append(add(t.bound.u, const(1)))
    q = _quotient(end, s, None, A, samples)
    if q is not None:
        cands.append(q)
    if len(s) == 1:
        (ms, cs), = s.items()
        qq = {}
        for m, c in end.items():
            d = _divides(ms, m)
            if d is not None and c % cs == 0:
                qq[d] = c // cs
        rest = add(end, mul(qq, s), -1)
        if atoms(rest) <= set(ms):  # a partial last row (`A[row * K]`), not an offset of other sizes
            cands += [qq, add(qq, const(1))]
    for c in cands:
        ok = True
        for smp in samples:
            e, sv, cv = A.eval(end, smp), A.eval(s, smp), A.eval(c, smp)
            if None in (e, sv, cv) or not (cv * sv >= e > (cv - 1) * sv):
                ok = False
                break
        if ok and c:
            return c
    return None
