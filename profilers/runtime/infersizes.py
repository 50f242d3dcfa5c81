"""The sizes of an inferred launch spec (runtime/infer.py): the size variables the expressions use, a small size
for correctness (cheap in the CPU emulator, distinct values, not multiples of the block; a loop's bound a third of
a thread count's) checked with its off-by-one neighbours, and a large one (about 100 us on an H200 by a model of
bytes and accesses) or the host's values, each where speccheck.Checker finds no read past a buffer and no output
left unwritten."""
from __future__ import annotations

import math

from ..analysis.extents import DIMS
from . import symbolic as sym
from .infer import (ACCESS_RATE, DRAM_BPS, MULTIPLES, SMALL_MANY, SMALL_ONE, SMALL_THREADS, SMALL_WORK, TARGET_S,
                    ArgPlan, Guess, _Unbound, _width)
from .speccheck import Checker


class Sizer:
    def __init__(self, inf):
        self.inf = inf

    def checker(self, args: list[ArgPlan], grid: Guess, block: Guess, shared: Guess) -> Checker:
        from .spec import ITEMSIZE
        values = {a.name: str(a.value.value) for a in args if not a.buffer and a.value is not None}
        shapes = {}
        for a, p in zip(args, self.inf.params):
            if a.buffer:
                s = list(a.shape.value)
                shapes[p.name or a.name] = s[:-1] if len(s) > 1 and str(s[-1]).isdigit() and \
                    (_width(self.inf.types, p) or 1) > 1 else s
        item = {a.name: ITEMSIZE.get(a.dtype.value, 4) * (_width(self.inf.types, p) or 1)
                for a, p in zip(args, self.inf.params) if a.buffer}
        consts = {n: sym.number(v) for n, v in self.inf.bind.table.items() if sym.number(v) is not None and "." not in n}
        return Checker(self.inf.ks, values, shapes, [str(g) for g in grid.value], [str(b) for b in block.value], item,
                       consts, str(shared.value))

    def choose(self, args, grid, block, shared) -> tuple[dict, dict, Guess]:
        used = set()
        for a in args:
            for e in (a.shape.value if a.shape else []) + ([a.value.value] if a.value and not a.buffer else []):
                p = sym.parse(str(e))
                if p is not None:
                    used |= sym.names(p)
        for e in list(grid.value) + list(block.value) + [shared.value]:
            p = sym.parse(str(e))
            if p is not None:
                used |= sym.names(p)
        for v in list(self.inf.variables):
            if v not in used:
                del self.inf.variables[v]
        names = sorted(used)
        if not names:
            fixed = next(iter(self.inf.host_values), "n")
            self.inf.variables[fixed] = Guess(self.inf.host_values.get(fixed, 1), "the kernel's sizes are constants of the "
                                          "source: this variable is unused")
            return ({"fixed": {fixed: self.inf.host_values.get(fixed, 1)}},
                    {"fixed": "the only size: the kernel's sizes are constants of the source"},
                    Guess(False, "the sizes are fixed by the source, nothing to vary"))
        chk = self.checker(args, grid, block, shared)
        small, swhy = self.small(names, chk)
        sizes, why = {"small": small}, {"small": swhy}
        large, lwhy = self.large(names, chk)
        if large is not None and large != small:
            key = "host" if all(n in self.inf.host_values for n in names) else "large"
            sizes[key], why[key] = large, lwhy
        off = self.off_by_one(names, small, chk)
        return sizes, why, off

    def cost(self, env: dict, chk: Checker) -> tuple[int, float, float] | None:
        """(threads, accesses, bytes) of one launch at env (the model the sizes are chosen by)."""
        kenv = chk.kernel_env(env)
        if kenv is None:
            return None
        threads = math.prod(kenv[f"gridDim.{d}"] * kenv[f"blockDim.{d}"] for d in DIMS)
        total = 0
        for name in chk.shapes:
            n = chk.elements(name, env)
            if n is None:
                return None
            total += n * chk.itemsize.get(name, 4)
        trips = 1.0
        for p in self.inf.ks.pointers.values():
            for u in p.uses:
                t = 1.0
                for b in u.guards:
                    if b.kind == "loop" and all(not a.startswith(("threadIdx", "blockIdx")) for m in b.q for a in m):
                        v = self.inf.A.eval(b.u, kenv)
                        if isinstance(v, int) and v > 0:
                            t *= v + 1
                trips = max(trips, t)
        return threads, threads * trips, float(total)

    def serial(self) -> set[str]:
        """Sizes that bound a loop each thread runs through (K of a dot product, a filter's width), not its
        threads: kept smaller than the others at the small size (a third of a thread count's)."""
        out = set()
        for p in self.inf.ks.pointers.values():
            for u in p.uses:
                for b in u.guards:
                    if b.kind == "loop" and not any(a.startswith(("threadIdx", "blockIdx")) for m in b.q for a in m):
                        try:
                            out |= sym.names(self.inf.bind.poly(b.u))
                        except _Unbound:
                            pass
        return out

    def small(self, names: list[str], chk: Checker) -> tuple[dict, str]:
        cands = []
        serial = self.serial() & set(names)
        ordered = [n for n in names if n not in serial] + [n for n in names if n in serial]
        if len(names) == 1:
            cands += [{names[0]: v} for v in SMALL_ONE]
        else:
            for row in SMALL_MANY:
                vals = list(row) + [3] * len(names)
                par = [n for n in ordered if n not in serial]
                env = {n: vals[i] for i, n in enumerate(par)}  # a loop's bound a third of a thread count's
                env.update({n: max(3, v // 3) for n, v in zip([n for n in ordered if n in serial], vals[len(par):])})
                cands.append({n: env[n] for n in names})
        mult = {n: self.inf.multiple[n] for n in names if n in self.inf.multiple}
        for m in MULTIPLES:
            cands.append({n: max(m, mult.get(n, 1)) if n in mult else (m if len(names) == 1 else 37) for n in names})
            cands.append({n: m for n in names})
        first_ok = None
        for env in cands:
            if chk.problems(env):
                continue
            c = self.cost(env, chk)
            if c is None:
                continue
            first_ok = first_ok or env
            if c[0] <= SMALL_THREADS and c[1] <= SMALL_WORK:
                if env is cands[0] or (len(names) > 1 and env in cands[:len(SMALL_MANY)]) or \
                        (len(names) == 1 and env in cands[:len(SMALL_ONE)]):
                    return env, "for correctness: small (cheap in the CPU emulator), not a multiple of the block"
                return env, "for correctness: the smallest size at which the analysis finds no read past a buffer " \
                            "and no output left unwritten"
        if first_ok is not None:
            return first_ok, "for correctness (the smallest size at which the checks pass)"
        self.inf.notes.append("no small size passes the analysis' checks; GUESS")
        return cands[0], "GUESS: no size passed the checks"

    def large(self, names: list[str], chk: Checker) -> tuple[dict | None, str]:
        if names and all(n in self.inf.host_values for n in names):
            env = {n: self.inf.host_values[n] for n in names}
            return env, "from the host code: " + ", ".join(f"{n} = {v}" for n, v in env.items())
        best = None
        # every size grows alike, the loops' bounds too: a column kernel's or a product's reduction length as long
        # as its thread count (the shapes the hand-written specs time: 16384 x 16384, 4096^3), not a short loop
        # over many threads where the naive kernel is already fine
        for k in range(5, 31):
            env = {n: self.inf.host_values.get(n, 2 ** k) for n in names}
            if chk.problems(env):
                continue
            c = self.cost(env, chk)
            if c is None:
                continue
            best = env
            t = max(c[2] / DRAM_BPS, c[1] / ACCESS_RATE)
            if t >= TARGET_S or c[2] > 8 * 2**30:
                break
        if best is None:
            return None, ""
        given = [n for n in names if n in self.inf.host_values]
        return best, ("GUESS: about 100 us on an H200 by a model of the bytes and accesses"
                      + (f"; {', '.join(given)} from the host code" if given else ""))

    def off_by_one(self, names: list[str], small: dict, chk: Checker) -> Guess:
        for delta in (-1, 1):
            env = {n: v + delta for n, v in small.items()}
            if any(v < 1 for v in env.values()):
                continue
            probs = chk.problems(env)
            if probs:
                return Guess(False, f"at {', '.join(f'{n} = {v}' for n, v in env.items())}: {probs[0].message}")
        return Guess(True, "the kernel's guards allow any size")
