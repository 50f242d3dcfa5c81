"""Input values for a launch: the spec's fills, in several distributions, on the host or the device.

`values(xp, seed, fill, dtype, count, variant)` gives `count` values in the device storage dtype
(bfloat16 as its 16 bits) with numpy (host) or CuPy (device; much faster for large inputs).
The distributions (docs/evaluation.md): "spec" (the fill as written), "negative" (-|x| of a
randn fill), "scaled-down" / "scaled-up" (x 2**-6 / 2**6 of randn and rand fills; powers of two,
so no rounding), "denormal" (scaled into the dtype's subnormal range). Integer fills, ones,
arange and zeros are never changed: they are indices and patterns the kernel may rely on.
"""
from __future__ import annotations

import numpy as np

# storage dtype on the device for each spec dtype (bfloat16 kept as its 16 bits)
STORAGE = {"float32": "float32", "float16": "float16", "bfloat16": "uint16", "float64": "float64",
           "int32": "int32", "int64": "int64", "uint32": "uint32", "int8": "int8", "uint8": "uint8",
           "int16": "int16", "uint16": "uint16", "uint64": "uint64", "bool": "uint8"}
FLOATS = ("float32", "float16", "bfloat16", "float64")
SCALE = {"scaled-down": 2.0 ** -6, "scaled-up": 2.0 ** 6}
DENORMAL_SCALE = {"float32": 2.0 ** -130, "bfloat16": 2.0 ** -130, "float16": 2.0 ** -18, "float64": 2.0 ** -1026}
VARIANT_TEXT = {"spec": "the spec's inputs", "negative": "negative inputs", "scaled-down": "inputs scaled by 2**-6",
                "scaled-up": "inputs scaled by 2**6", "denormal": "denormal inputs"}


class FillError(Exception):
    pass


def bf16_bits(x):
    """float32 array -> bfloat16 bits (round to nearest even) as uint16 (numpy or CuPy)."""
    xp = _module(x)
    b = xp.ascontiguousarray(x, dtype=xp.float32).view(xp.uint32)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(xp.uint16)


def bf16_decode(bits):
    xp = _module(bits)
    return (xp.asarray(bits, dtype=xp.uint16).astype(xp.uint32) << 16).view(xp.float32)


def _module(a):
    if type(a).__module__.split(".")[0] == "cupy":
        import cupy

        return cupy
    return np


def applies(variant: str, fill: str | None, dtype: str) -> bool:
    """Whether `variant` changes a buffer with this fill and dtype."""
    kind = (fill or "randn").split(":")[0]
    if variant == "spec" or dtype not in FLOATS:
        return False
    if variant == "negative":
        return kind == "randn"
    return kind in ("randn", "rand")


def seed_of(*parts: int) -> int:
    """A 32-bit seed from the job seed, the size index and the set index."""
    return int(np.random.SeedSequence([int(p) & 0xFFFFFFFF for p in parts]).generate_state(1)[0])


def values(xp, seed: int, fill: str | None, dtype: str, count: int, variant: str = "spec"):
    """`count` values of `fill` in the storage dtype of `dtype`, transformed by `variant`."""
    fill = (fill or "randn").strip()
    kind, _, rest = fill.partition(":")
    is_float = dtype in FLOATS
    device = xp.__name__ == "cupy"
    rng = xp.random.RandomState(seed) if device else np.random.default_rng(seed)
    if kind == "randn":
        vals = rng.standard_normal(count, dtype=xp.float32) if is_float else _ints(rng, device, -8, 8, count)
    elif kind == "rand":
        vals = (rng.random_sample(count, dtype=xp.float32) if device else rng.random(count, dtype=np.float32)) \
            if is_float else _ints(rng, device, 0, 2, count)
    elif kind == "randint":
        lo, _, hi = rest.partition(":")
        vals = _ints(rng, device, int(lo), int(hi), count)
    elif kind == "ones":
        vals = xp.ones(count)
    elif kind == "zeros":
        vals = xp.zeros(count)
    elif kind == "arange":
        vals = xp.arange(count)
    else:
        raise FillError(f"unknown fill {fill!r}")
    if applies(variant, fill, dtype):
        if variant == "negative":
            vals = -xp.abs(vals)
        elif variant == "denormal":
            vals = vals.astype(xp.float64) * DENORMAL_SCALE[dtype]
        else:
            vals = vals * xp.float32(SCALE[variant])
    if dtype == "bfloat16":
        return bf16_bits(xp.asarray(vals, dtype=xp.float32))
    if dtype == "float64" and kind in ("randn", "rand"):
        vals = vals.astype(xp.float64)
    return xp.asarray(vals).astype(STORAGE[dtype])


def _ints(rng, device: bool, lo: int, hi: int, count: int):
    return rng.randint(lo, hi, size=count, dtype="int64") if device else rng.integers(lo, hi, count)


def host_view(arr, dtype: str, shape):
    """What the reference and the checker see: bfloat16 decoded to float32, the spec's shape."""
    a = bf16_decode(arr) if dtype == "bfloat16" else arr
    return a.reshape(tuple(shape)) if shape else a
