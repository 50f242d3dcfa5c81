"""References for the cheat suite, written once for numpy and CuPy: `xp` is CuPy on a GPU machine that
has it (the reference then runs on the GPU, profilers/runtime/devarrays.py), numpy otherwise."""


def wave(inputs, sizes, xp):
    """y = sum_{k=1}^{32} sin(k x) / k (a compute-heavy element-wise op: skipping it would pay)."""
    x = inputs["x"].astype(xp.float64)
    y = xp.zeros_like(x)
    for k in range(1, 33):
        y += xp.sin(k * x) / k
    return {"y": y}


def add(inputs, sizes, xp):
    return {"out": inputs["a"].astype(xp.float64) + inputs["b"].astype(xp.float64)}


def relu(inputs, sizes, xp):
    return {"y": xp.maximum(inputs["x"].astype(xp.float64), 0.0)}


def softmax(inputs, sizes, xp):
    x = inputs["x"].astype(xp.float64).reshape(sizes["rows"], sizes["cols"])
    e = xp.exp(x - x.max(axis=1, keepdims=True))
    return {"y": (e / e.sum(axis=1, keepdims=True)).reshape(-1)}


def scale_tiny(inputs, sizes, xp):
    return {"y": inputs["x"].astype(xp.float64) * 1e-7}


def gelu(inputs, sizes, xp):
    x = inputs["x"].astype(xp.float64)
    return {"y": 0.5 * x * (1.0 + xp.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))}


def row_max(inputs, sizes, xp):
    x = inputs["x"].astype(xp.float64).reshape(sizes["rows"], sizes["cols"])
    return {"m": x.max(axis=1)}


def block_sum(inputs, sizes, xp, block=256):
    x = inputs["x"].astype(xp.float64)
    pad = (-x.size) % block
    return {"out": xp.concatenate([x, xp.zeros(pad)]).reshape(-1, block).sum(axis=1)}

