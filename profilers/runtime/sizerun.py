"""Inside the GPU worker: one problem size, checked so that no candidate can fool it, then timed.

The protocol (docs/evaluation.md says why each step is there):
1. Input set 0 (the spec's fills): the candidate runs BEFORE the reference exists; then the reference
   runs; the outputs are checked; the candidate runs again AFTER the reference and is checked again;
   its inputs must still hold what was uploaded.
2. One check-only set per extra distribution ([check] distributions: negative, scaled-down, ...), at
   the spec's sizes (with checks on the host, at the first size only).
3. Off-by-one sizes ("small-1", "small+1") stop here: checked, not timed.
4. Timing over several input sets with distinct values (set 0 and fresh ones, each with its own
   reference), in a random order. Before every launch, outside the events: outputs and scratch
   poisoned (in/out buffers and filled scratch restored), the module's device variables put back to
   their initial bytes, the L2 flushed. A random sample of timed launches (all of them when few) is
   checked against its set's reference: on the GPU with CuPy (queued, read after the loop), else
   through copies of the outputs checked on the host. Afterwards every set's inputs are verified.
5. Energy: back-to-back launches whose outputs go to the buffers of the NEXT input set (so an output
   buffer never already holds the answer for the inputs at hand); the last outputs are checked.

Every check failure is a result ("wrong result at size ..."), never an exception.
"""
from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field

import numpy as np

from . import inputs as inp
from .correctness import Tolerance, check_outputs, count_bad, quick_verdict, thresholds
from .devarrays import as_cupy, reference_kind, result_array, to_torch

MAX_SETS = 3
CHECKED_LAUNCHES = {"device": 32, "host": 4}  # timed launches checked per size (all when fewer)
SET_MEMORY_SHARE = 0.25  # the timing sets may use this share of the free device memory


class Failed(Exception):
    """A check failed: the size's result is this message."""


@dataclass
class ArgSet:
    index: int
    variant: str
    bufs: dict  # name -> DeviceAllocation
    pristine: dict  # name -> DeviceAllocation holding the uploaded contents (inputs, in/out, filled scratch)
    host: dict = field(default_factory=dict)  # name -> numpy storage array (host mode, or downloaded on demand)
    launcher: object = None
    refs: dict | None = None  # output -> reference (CuPy on the device, numpy on the host)
    quick: dict = field(default_factory=dict)  # output -> thresholds() of the quick check
    weak: dict = field(default_factory=dict)  # output -> True when the tolerance is weak for it
    ready: bool = False  # checked in full and its quick-check data prepared


class SizeRun:
    """One size of one job; `rt` is the runner module (driver access, Launcher, failures)."""

    def __init__(self, rt, job: dict, size: dict, index: int, funcs: dict, ref_funcs: dict, dev, state, xp):
        self.rt, self.job, self.size, self.index = rt, job, size, index
        self.funcs, self.ref_funcs, self.dev, self.state, self.xp = funcs, ref_funcs, dev, state, xp
        self.drv = rt._drv()
        self.name = size["name"]
        self.buffers = size["buffers"]
        self.nbytes = {b["name"]: int(b["count"]) * np.dtype(inp.STORAGE[b["dtype"]]).itemsize for b in self.buffers}
        self.dtypes = {b["name"]: b["dtype"] for b in self.buffers}
        self.outputs = [b for b in self.buffers if b.get("output")]
        self.inputs = [b for b in self.buffers if not b.get("output") and not b.get("scratch")]
        self.tol = Tolerance.from_json(size.get("tolerance"), float(job.get("rtol", 1e-4)), float(job.get("atol", 1e-6)))
        self.sets: list[ArgSet] = []
        self.notes: list[str] = []
        self.free0 = self._free_memory()
        self.min_free = self.free0
        self.checked = 0

    # --- buffers ---------------------------------------------------------------------------------
    def _free_memory(self) -> int:
        try:
            return int(self.drv.mem_get_info()[0])
        except Exception:
            return 0

    def _sample_memory(self) -> None:
        self.min_free = min(self.min_free, self._free_memory() or self.min_free)

    def has_data(self, b: dict) -> bool:
        return bool(b.get("fill")) or not (b.get("output") or b.get("scratch"))

    def new_set(self, i: int, variant: str) -> ArgSet:
        rt, drv = self.rt, self.drv
        where = f"size {self.name}"
        seed = inp.seed_of(int(self.job.get("seed", 0)), self.index, i)
        st = ArgSet(i, variant, {}, {})
        self.sets.append(st)
        for k, b in enumerate(self.buffers):
            name, n = b["name"], self.nbytes[b["name"]]
            st.bufs[name] = d = rt._alloc(drv, n, f"{name} ({where})")
            if not self.has_data(b):
                drv.memset_d8(d, 0xFF, n)  # poison: NaN in every float type, all-ones ints
                continue
            st.pristine[name] = p = rt._alloc(drv, n, f"a copy of {name} ({where})")
            try:
                if self.xp is not None:
                    vals = inp.values(self.xp, seed + k, b.get("fill"), b["dtype"], int(b["count"]), variant)
                    as_cupy(int(p), (int(b["count"]),), inp.STORAGE[b["dtype"]], p)[...] = vals
                else:
                    st.host[name] = vals = inp.values(np, seed + k, b.get("fill"), b["dtype"], int(b["count"]), variant)
                    drv.memcpy_htod(p, vals)
            except inp.FillError as e:
                raise rt.JobFailure(str(e)) from None
            drv.memcpy_dtod(d, p, max(n, 1))
        st.launcher = rt.Launcher(self.funcs, self.size["steps"], st.bufs, where, self.nbytes)
        return st

    def prepare(self, st: ArgSet, bufs: dict | None = None) -> None:
        """Before a run (asynchronous): poison outputs and unfilled scratch, restore the rest, reset state."""
        bufs = bufs or st.bufs
        for b in self.buffers:
            name = b["name"]
            if not self.has_data(b):
                self.drv.memset_d8_async(bufs[name], 0xFF, self.nbytes[name], None)
            elif b.get("output") or b.get("scratch"):
                self.drv.memcpy_dtod_async(bufs[name], st.pristine[name], self.nbytes[name], None)
        if self.state is not None:
            self.state.reset()

    def run(self, st: ArgSet, what: str) -> None:
        self.prepare(st)
        st.launcher.launch(sync=True)
        self._sample_memory()

    def free(self) -> None:
        for st in self.sets:
            for d in list(st.bufs.values()) + list(st.pristine.values()):
                try:
                    d.free()
                except Exception:
                    pass
        self.sets = []
        if self.xp is not None:
            try:
                self.xp.get_default_memory_pool().free_all_blocks()
            except Exception:
                pass

    # --- host and device views -------------------------------------------------------------------
    def _shape(self, b: dict) -> tuple:
        return tuple(b["shape"]) if b.get("shape") else (int(b["count"]),)

    def _device(self, alloc, b: dict):
        return as_cupy(int(alloc), self._shape(b), inp.STORAGE[b["dtype"]], alloc)

    def _download(self, alloc, b: dict):
        a = np.empty(int(b["count"]), dtype=inp.STORAGE[b["dtype"]])
        self.drv.memcpy_dtoh(a, alloc)
        return a.reshape(self._shape(b))

    def outputs_of(self, bufs: dict) -> dict:
        if self.xp is not None:
            return {b["name"]: self._device(bufs[b["name"]], b) for b in self.outputs}
        return {b["name"]: self._download(bufs[b["name"]], b) for b in self.outputs}

    def _input_values(self, st: ArgSet, b: dict, device: bool):
        """A copy of an input as the reference sees it (bfloat16 decoded, the spec's shape)."""
        name = b["name"]
        if device:
            raw = self._device(st.pristine[name], b).copy()
        else:
            raw = st.host.get(name)
            if raw is None:
                raw = st.host[name] = self._download(st.pristine[name], b).reshape(-1)
            raw = raw.copy()
        return inp.host_view(raw, b["dtype"], b.get("shape"))

    # --- the reference ---------------------------------------------------------------------------
    def reference(self, st: ArgSet) -> None:
        ref = self.job.get("reference") or {}
        if ref.get("python"):
            st.refs = self._python_reference(st, ref["python"])
        elif ref.get("kernel"):
            st.refs = self._kernel_reference(st)
        else:
            st.refs = None

    def _python_reference(self, st: ArgSet, target: str) -> dict:
        rt, where = self.rt, self._where(st)
        fn = rt.load_python_reference(target)
        kind = reference_kind(fn)
        device = self.xp is not None and kind in ("xp", "torch")
        ins = {b["name"]: self._input_values(st, b, device) for b in self.buffers
               if self.has_data(b) and not b.get("scratch")}
        try:
            if kind == "torch":
                import torch

                refs = fn({k: to_torch(v) for k, v in ins.items()}, dict(self.size["vars"]), torch)
            elif kind == "xp":
                refs = fn(ins, dict(self.size["vars"]), self.xp if device else np)
            else:
                refs = fn(ins, dict(self.size["vars"]))
        except ImportError as e:
            raise rt.JobFailure(f"the reference needs {e.name or e} ({where})") from None
        except Exception as e:
            raise rt.JobFailure(f"the reference raised {type(e).__name__}: {e} ({where})") from None
        if not isinstance(refs, dict):
            raise rt.JobFailure(f"the reference returned {type(refs).__name__}, not a dict of outputs ({where})")
        out = {}
        for k, v in refs.items():
            a = result_array(v, self.xp)
            b = next((x for x in self.outputs if x["name"] == k), None)
            if b is not None and a.shape != self._shape(b) and a.size == int(b["count"]):
                a = a.reshape(self._shape(b))
            out[k] = a
        return out

    def _kernel_reference(self, st: ArgSet) -> dict:
        rt, drv = self.rt, self.drv
        rbufs = {}
        try:
            for b in self.buffers:
                name, n = b["name"], self.nbytes[b["name"]]
                rbufs[name] = d = rt._alloc(drv, n, f"{name} (reference, size {self.name})")
                if name in st.pristine:
                    drv.memcpy_dtod(d, st.pristine[name], max(n, 1))
                else:
                    drv.memset_d8(d, 0xFF, n)
            rt.Launcher(self.ref_funcs, self.size["ref_steps"], rbufs, f"reference, {self._where(st)}",
                        self.nbytes).launch(sync=True)
            if self.xp is not None:
                return {b["name"]: self._device(rbufs[b["name"]], b).copy() for b in self.outputs}
            return {b["name"]: self._download(rbufs[b["name"]], b) for b in self.outputs}
        finally:
            for d in rbufs.values():
                d.free()

    # --- checks ----------------------------------------------------------------------------------
    def _where(self, st: ArgSet) -> str:
        extra = [] if st.variant == "spec" else [inp.VARIANT_TEXT.get(st.variant, st.variant)]
        if st.index and st.variant == "spec":
            extra.append(f"input set {st.index}")
        return f"size {self.name}" + (f" ({', '.join(extra)})" if extra else "")

    def check(self, st: ArgSet, when: str = "", bufs: dict | None = None) -> dict:
        """Full check of the outputs now in `bufs` (default: the set's own) against the set's reference."""
        poisoned = {b["name"]: not b.get("fill") for b in self.outputs}
        dtypes = {b["name"]: b["dtype"] for b in self.outputs}
        chk = check_outputs(self.outputs_of(bufs or st.bufs), st.refs, self.tol.rtol, self.tol.atol, dtypes,
                            poisoned, atol_rms=self.tol.atol_rms, note=self.tol.note)
        if not chk.ok:
            raise Failed(f"wrong result at {self._where(st)}{when}: {chk.reason}", chk)
        if st.refs:
            for b in self.outputs:
                st.weak[b["name"]] = bool(chk.weak) and (len(self.outputs) == 1 or f"{b['name']}:" in chk.weak)
        return _json_safe(asdict(chk))

    def verify_inputs(self, st: ArgSet, when: str = "") -> None:
        """The kernel must leave its inputs as they were uploaded."""
        for b in self.inputs:
            name = b["name"]
            if self.xp is not None:
                now = self._device(st.bufs[name], b).reshape(-1).view(self.xp.uint8)
                was = self._device(st.pristine[name], b).reshape(-1).view(self.xp.uint8)
                diff = self.xp.flatnonzero(now != was)
                changed, first = int(diff.size), (int(diff[0]) if diff.size else 0)
            else:
                now = self._download(st.bufs[name], b).reshape(-1).view(np.uint8)
                was = self._download(st.pristine[name], b).reshape(-1).view(np.uint8)
                diff = np.flatnonzero(now != was)
                changed, first = int(diff.size), (int(diff[0]) if diff.size else 0)
            if changed:
                item = np.dtype(inp.STORAGE[b["dtype"]]).itemsize
                raise Failed(f"wrong result at {self._where(st)}{when}: the kernel changed its input {name!r} "
                             f"({changed} bytes differ, first in element {first // item}); inputs must stay as "
                             f"they were", None)

    def prepare_quick(self, st: ArgSet) -> None:
        if st.refs is None or self.xp is None:
            return
        for b in self.outputs:
            st.quick[b["name"]] = thresholds(st.refs[b["name"]], b["dtype"], self.tol, st.weak.get(b["name"], False))

    # --- the protocol ----------------------------------------------------------------------------
    def run_size(self) -> tuple[dict, list]:
        """The size's result dict and the timing sets (kept for energy; free() releases them)."""
        res = {"size": self.name, "ok": True, "bytes": int(self.size.get("bytes") or 0), "flops": self.size.get("flops"),
               "check_only": bool(self.size.get("check_only"))}
        if not self.job.get("check", True):  # Nsight Compute and Compute Sanitizer: one launch, nothing judged
            st = self.new_set(0, "spec")
            self.run(st, "")
            res["check"] = {}
            return res, []
        full = self.job.get("defences", True)  # False only to measure what the defences cost (benchmarks/)
        try:
            st0 = self.new_set(0, "spec")
            self.run(st0, "before the reference")
            self.reference(st0)
            res["check"] = self.check(st0)
            if full:
                self.verify_inputs(st0)
                self.run(st0, "after the reference")
                self.check(st0, ", run again after the reference")
                self.verify_inputs(st0, ", run again after the reference")
            variants = [v for v in self.job.get("distributions", ["spec"]) if v != "spec"
                        and any(inp.applies(v, b.get("fill"), b["dtype"]) for b in self.buffers if self.has_data(b))]
            if res["check_only"] or (self.xp is None and self.index > 0):
                variants = []  # an off-by-one size tests the size; a host reference is slow: first size only
            res["variants"] = ["spec"] + variants
            for v in variants:
                st = self.new_set(len(self.sets), v)
                self.run(st, "")
                self.reference(st)
                self.check(st)
                self.verify_inputs(st)
                self._release(st)
            if res["check_only"] or not (self.job.get("timing", True) or self.job.get("energy")):
                return self._finish(res), []
            extra = self._extra_sets(st0) if full else 0
            timing_sets = [st0] + [self.new_set(len(self.sets), "spec") for _ in range(extra)]
            for st in timing_sets[1:]:
                self.reference(st)
            res["sets"] = len(timing_sets)
            return self._finish(res), timing_sets
        except Failed as e:
            res.update(ok=False, failure=str(e.args[0]))
            if len(e.args) > 1 and e.args[1] is not None:
                res["check"] = _json_safe(asdict(e.args[1]))
            return self._finish(res), []

    def _release(self, st: ArgSet) -> None:
        for d in list(st.bufs.values()) + list(st.pristine.values()):
            d.free()
        self.sets.remove(st)

    def _extra_sets(self, st0: ArgSet) -> int:
        per_set = sum(self.nbytes.values()) + sum(self.nbytes[n] for n in st0.pristine)
        per_set += sum(16 * int(b["count"]) for b in self.outputs)  # the reference and its thresholds
        wanted = int(self.job.get("sets") or (MAX_SETS if self.xp is not None else 2))
        if per_set <= 0:
            return wanted - 1
        fit = int(SET_MEMORY_SHARE * self._free_memory() // per_set) if self.free0 else wanted
        if fit < 1:
            self.notes.append("timed on one input set: a second does not fit in a quarter of the free memory")
        return max(0, min(wanted, 1 + fit) - 1)

    def _finish(self, res: dict) -> dict:
        res["memory"] = {"buffers_bytes": sum(self.nbytes.values()),
                         "device_peak_bytes": max(0, self.free0 - self.min_free)}
        if self.state is not None and self.state.names:
            res["device_state"] = list(self.state.names)
        if self.state is not None and self.state.problem:
            self.notes.append(self.state.problem)
        if self.notes:
            res["notes"] = list(self.notes)
        return res

    # --- timing ----------------------------------------------------------------------------------
    def time(self, sets: list[ArgSet], flush, target_s: float, min_reps: int, max_reps: int) -> dict:
        """Timed launches over the sets; checks a sample of them. Returns {"times", "checked"} or raises Failed."""
        rt, drv = self.rt, self.drv
        where = f"size {self.name}"
        rng = np.random.default_rng(inp.seed_of(int(self.job.get("seed", 0)), self.index, 999))
        self.ready(sets)
        for st in sets:  # warm-up
            self.prepare(st)
            flush()
            st.launcher.launch()
        rt._sync(drv, f"warm-up, {where}")
        t0 = time.perf_counter()
        for i in range(3):
            st = sets[i % len(sets)]
            self.prepare(st)
            flush()
            st.launcher.launch()
            rt._sync(drv, f"warm-up, {where}")
        n = rt.choose_reps((time.perf_counter() - t0) / 3, target_s, min_reps, max_reps)
        order = schedule(n, len(sets), rng)
        mode = "device" if self.xp is not None else "host"
        k = min(n, CHECKED_LAUNCHES[mode])
        checked = set(int(x) for x in rng.choice(n, size=k, replace=False)) | {n - 1}
        if not self.job.get("defences", True):
            checked = set()
        witnesses = self._witness_buffers(len(checked)) if mode == "host" else []
        events = [(drv.Event(), drv.Event()) for _ in range(n)]
        pending = []
        for i, (start, end) in enumerate(events):
            st = sets[order[i]]
            self.prepare(st)
            flush()
            start.record()
            st.launcher.launch()
            end.record()  # on the legacy default stream: after all blocking streams' work
            if i in checked:
                pending.append((i, st, self._enqueue_check(st, st.bufs, witnesses.pop() if witnesses else None)))
        rt._sync(drv, f"timed launches, {where}")
        times = [e.time_since(s) * 1e-3 for s, e in events]
        self.checked += len(pending)
        self._resolve(pending, n)
        for st in sets if self.job.get("defences", True) else []:
            self.verify_inputs(st, ", after the timed launches")
        return {"times": times, "checked": len(pending)}

    def ready(self, sets: list[ArgSet]) -> None:
        """Each timing set beyond the first run once and fully checked; the quick-check data prepared."""
        for st in sets:
            if st.ready:
                continue
            if st.index:
                self.run(st, "")
                self.check(st)
                self.verify_inputs(st)
            self.prepare_quick(st)
            st.ready = True

    def _witness_buffers(self, k: int) -> list[dict]:
        return [{b["name"]: self.rt._alloc(self.drv, self.nbytes[b["name"]], "a copy of a timed output")
                 for b in self.outputs} for _ in range(k)]

    def _enqueue_check(self, st: ArgSet, bufs: dict, witness: dict | None):
        """Queue the check of the outputs in `bufs` (device), or copy them aside (host)."""
        if st.refs is None:
            return None
        if witness is None:  # device: counts stay on the GPU until the loop ends
            return {b["name"]: count_bad(self._device(bufs[b["name"]], b), st.quick[b["name"]], b["dtype"])
                    for b in self.outputs}
        for b in self.outputs:
            self.drv.memcpy_dtod_async(witness[b["name"]], bufs[b["name"]], self.nbytes[b["name"]], None)
        return witness

    def _resolve(self, pending: list, n: int, when: str = "timed launch") -> None:
        first = None
        for i, st, q in pending:
            if q is None or first is not None:
                continue
            if self.xp is not None:
                for name, (bad, sumsq) in q.items():
                    why = quick_verdict(bad, sumsq, st.quick[name])
                    if why:
                        first = f"wrong result at {self._where(st)}, {when} {i + 1} of {n}: {name}: {why}"
                        break
            else:
                try:
                    self.check(st, f", {when} {i + 1} of {n}", bufs=q)
                except Failed as e:
                    first = e.args[0]
        for _, _, q in pending:
            if q is not None and self.xp is None:
                for d in q.values():
                    d.free()
        if first:
            raise Failed(first, None)

    # --- energy ----------------------------------------------------------------------------------
    def energy(self, sets: list[ArgSet], pci_bus_id: str | None, est_s: float, min_s: float) -> dict:
        """NVML energy over back-to-back launches; launch k reads set k's inputs and writes set k+1's outputs."""
        from .energy import measure_energy

        rt, drv = self.rt, self.drv
        self.ready(sets)
        s = len(sets)
        mixed = []
        for k, st in enumerate(sets):
            nxt = sets[(k + 1) % s]
            bufs = {b["name"]: (st.bufs if not (b.get("output") or b.get("scratch")) else nxt.bufs)[b["name"]]
                    for b in self.buffers}
            mixed.append((st, nxt, bufs, rt.Launcher(self.funcs, self.size["steps"], bufs, f"energy run, size {self.name}",
                                                     self.nbytes)))
        zero_scratch = [b for b in self.buffers if b.get("scratch") and self.has_data(b)]
        count = [0]

        def launch():
            st, nxt, bufs, ln = mixed[count[0] % s]
            for b in zero_scratch:
                drv.memcpy_dtod_async(bufs[b["name"]], nxt.pristine[b["name"]], self.nbytes[b["name"]], None)
            if self.state is not None:
                self.state.reset()
            ln.launch()
            count[0] += 1

        out = measure_energy(launch, lambda: rt._sync(drv, f"energy run, size {self.name}"), pci_bus_id,
                             est_s=est_s, min_s=min_s)
        if s > 1 and count[0] >= s and not any(b.get("fill") for b in self.outputs) and sets[0].refs is not None:
            # the last launch into each output buffer came from the set before it
            pending = []
            for k in range(s):
                src, dst, bufs, _ = mixed[k]
                q = self._enqueue_check(src, bufs, self._witness_buffers(1)[0] if self.xp is None else None)
                pending.append((k, src, q))
            rt._sync(drv, f"energy run, size {self.name}")
            self._resolve(pending, s, when="energy launch of input set")
        return out


def schedule(n: int, sets: int, rng) -> list[int]:
    """A random order of `n` launches over `sets` input sets with no set twice in a row (when sets > 1)."""
    if sets <= 1:
        return [0] * n
    out = [int(rng.integers(sets))]
    for _ in range(n - 1):
        k = int(rng.integers(sets - 1))
        out.append(k if k < out[-1] else k + 1)
    return out


def _json_safe(d: dict) -> dict:
    out = {}
    for k, v in d.items():
        if hasattr(v, "item"):
            v = v.item()
        if isinstance(v, float) and not math.isfinite(v):
            v = float(v)
        out[k] = v
    return out
