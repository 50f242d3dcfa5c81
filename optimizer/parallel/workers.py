"""What `--workers` and `--gpu-model` ask for, and which GPUs of a Ray cluster answer it (pure: no Ray)."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

GPUS_ENV = "KERNELPRO_RAY_GPUS_PER_WORKER"
INSTALL = "pip install 'kernelpro[ray]'"


class WorkersError(Exception):
    """A bad --workers value, Ray missing, or a cluster that cannot give the workers asked for (one line)."""


@dataclass(frozen=True)
class Workers:
    count: int | None = None  # None: one per GPU found
    address: str | None = None  # None: a local Ray instance started for this run

    def __str__(self):
        return self.address or (str(self.count) if self.count else "auto")


def parse_workers(text: str) -> Workers:
    """`auto`, a positive number, `ray://HOST:PORT` (Ray Client) or `HOST:PORT` (a cluster this machine is in)."""
    t = (text or "").strip()
    if t == "auto":
        return Workers()
    if t.isdigit() and int(t) > 0:
        return Workers(count=int(t))
    if re.fullmatch(r"(ray://)?[A-Za-z0-9_.\-\[\]:]+:\d+", t):
        return Workers(address=t)
    raise WorkersError(f"--workers: expected auto, a number of GPUs (1 or more) or ray://HOST:PORT, got {text!r}")


def gpus_per_worker() -> float:
    """GPUs each actor holds: 1 (always, for timing). KERNELPRO_RAY_GPUS_PER_WORKER=0 gives CPU-only actors
    (CI, with a stand-in runtime) and 0.5 two actors per GPU (a plumbing check); neither times anything
    that may be compared."""
    raw = os.environ.get(GPUS_ENV)
    if raw is None or raw.strip() == "":
        return 1.0
    try:
        g = float(raw)
    except ValueError:
        g = -1.0
    if not (0.0 <= g <= 1.0):
        raise WorkersError(f"{GPUS_ENV}={raw!r}: expected a number from 0 to 1 (1 for timing)")
    return g


def import_ray():
    try:
        import ray
    except ImportError as e:
        raise WorkersError(f"--workers needs Ray, which is not installed ({e}): {INSTALL}") from None
    return ray


def ray_address_problem(address: str) -> str | None:
    """Ray Client (ray://) needs grpcio, which `kernelpro[ray]` brings; say so when it is missing."""
    if address.startswith("ray://"):
        try:
            import grpc  # noqa: F401
        except ImportError:
            return f"--workers {address}: Ray Client needs grpcio: {INSTALL}"
    return None


@dataclass(frozen=True)
class Pick:
    model: str | None  # accelerator type the actors are pinned to (None: no label, or any model)
    gpus: float  # GPUs of that model (or of all models) in the cluster
    mixed: bool  # timings will come from several models
    note: str


def gpu_models(nodes: list[dict]) -> dict[str, float]:
    """{accelerator type: GPUs} over the alive nodes of `ray.nodes()`; a node with GPUs but no label counts
    as "unlabelled"."""
    out: dict[str, float] = {}
    for n in nodes:
        if not n.get("Alive", True):
            continue
        res = n.get("Resources") or {}
        gpus = float(res.get("GPU", 0) or 0)
        if gpus <= 0:
            continue
        types = sorted(k.split(":", 1)[1] for k in res if k.startswith("accelerator_type:"))
        key = types[0] if types else "unlabelled"
        out[key] = out.get(key, 0.0) + gpus
    return out


def pick_gpus(nodes: list[dict], want: str | None) -> Pick:
    """Which GPUs the actors may use: one model (the one asked for, or the one with the most GPUs, ties by
    name), or every model with `want == "any"` (then each branch is re-measured on one GPU before it is
    written and its speedup is that re-measurement)."""
    models = gpu_models(nodes)
    listing = ", ".join(f"{int(g)} x {m}" for m, g in sorted(models.items())) or "none"
    if want == "any":
        mixed = len(models) > 1
        note = (f"GPUs of {len(models)} models ({listing}): the search compares timings across models; each branch "
                f"is re-measured on one GPU before it is written" if mixed else f"GPUs: {listing}")
        return Pick(None, sum(models.values()), mixed, note)
    if want:
        if want not in models:
            raise WorkersError(f"--gpu-model {want}: the cluster has no GPU of that model (it has: {listing})")
        return Pick(want if want != "unlabelled" else None, models[want], False, f"GPUs: {int(models[want])} x {want}")
    if not models:
        return Pick(None, 0.0, False, "GPUs: none")
    model = sorted(models.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
    note = f"GPUs: {int(models[model])} x {model}"
    if len(models) > 1:
        others = ", ".join(f"{int(g)} x {m}" for m, g in sorted(models.items()) if m != model)
        note += (f"; timings are compared only on one model, so {others} stay unused "
                 f"(--gpu-model NAME picks another, --gpu-model any uses all)")
    return Pick(model if model != "unlabelled" else None, models[model], False, note)


def worker_count(w: Workers, available_gpus: float, per_worker: float) -> int:
    """How many actors: one per GPU (auto), or the number asked for, which the GPUs must hold."""
    if per_worker == 0:
        if w.count is None:
            raise WorkersError(f"{GPUS_ENV}=0 (CPU-only actors): give the number of workers, --workers N")
        return w.count
    fit = int(available_gpus / per_worker + 1e-9)
    if w.count is None:
        if fit < 1:
            where = f"the cluster at {w.address}" if w.address else "this machine"
            raise WorkersError(f"--workers {w}: Ray sees no GPU on {where}")
        return fit
    if w.count > fit:
        raise WorkersError(f"--workers {w.count}: Ray sees {available_gpus:g} GPU(s) of the model used here, "
                           f"room for {fit} worker(s) holding {per_worker:g} GPU each")
    return w.count
