"""The runner's device buffers seen as CuPy arrays or torch tensors, and the Python reference's call.

pycuda owns the allocations; `DeviceView(ptr, shape, dtype)` exposes one through the CUDA Array
Interface, so `cupy.asarray(view)` and `torch.as_tensor(view, device="cuda")` see the same memory
without a copy. Everything runs on the legacy default stream of the one primary context (pycuda's
launches, CuPy's and torch's default streams), so no extra synchronisation is needed.

A reference chooses where it runs by its third parameter:
    def reference(inputs, sizes)          numpy arrays on the host (the fallback)
    def reference(inputs, sizes, xp)      xp is CuPy and the inputs CuPy arrays on the GPU when CuPy
                                          is installed, else numpy (the same code runs on either)
    def reference(inputs, sizes, torch)   torch tensors on the GPU (torch must be installed)
"""
from __future__ import annotations

import inspect
import os

import numpy as np

_XP: list = []  # [cupy or None], decided once per process


class DeviceView:
    """A device allocation as an object with __cuda_array_interface__ (owner keeps it alive)."""

    def __init__(self, ptr: int, shape, dtype, owner=None):
        self.ptr, self.shape, self.dtype, self.owner = int(ptr), tuple(int(s) for s in shape), np.dtype(dtype), owner

    @property
    def __cuda_array_interface__(self) -> dict:
        return {"shape": self.shape, "typestr": self.dtype.str, "data": (self.ptr, False), "version": 3,
                "strides": None}


def device_xp(device: int = 0):
    """CuPy when it is installed and sees the GPU (and KERNELPRO_HOST_CHECKS is not set), else None."""
    if not _XP:
        xp = None
        if not os.environ.get("KERNELPRO_HOST_CHECKS"):
            try:
                import cupy

                cupy.cuda.Device(device).use()
                xp = cupy
            except Exception:  # not installed, no driver, another CUDA version: the host path works
                xp = None
        _XP.append(xp)
    return _XP[0]


def as_cupy(ptr: int, shape, dtype, owner=None):
    import cupy

    return cupy.asarray(DeviceView(ptr, shape, dtype, owner))


def reference_kind(fn) -> str:
    """"host", "xp" or "torch", from the reference's third parameter (see the module doc)."""
    try:
        params = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return "host"
    if len(params) >= 3 and params[2] in ("xp", "torch"):
        return params[2]
    return "host"


def to_torch(a):
    """A CuPy array (device) or numpy array (host) as a torch tensor, sharing memory where it can."""
    import torch

    if type(a).__module__.split(".")[0] == "cupy":
        return torch.as_tensor(a, device="cuda")
    return torch.from_numpy(np.ascontiguousarray(a))


def result_array(v, xp):
    """A reference's returned array (numpy, CuPy or torch) on the checker's side: CuPy (xp) or numpy."""
    if hasattr(v, "detach"):  # torch
        v = v.detach()
        if xp is not None and v.is_cuda:
            return xp.array(v.contiguous(), copy=True)
        v = v.cpu().numpy()
    if type(v).__module__.split(".")[0] == "cupy":
        return v if xp is not None else v.get()
    v = np.asarray(v)
    return xp.asarray(v) if xp is not None else v
