"""Reference for the linear layer out = inp weight^T + bias (float64; CuPy on the GPU where installed)."""


def linear(inputs, sizes, xp):
    n, c, oc = sizes["N"], sizes["C"], sizes["OC"]
    x = inputs["inp"].reshape(n, c).astype(xp.float64)
    w = inputs["weight"].reshape(oc, c).astype(xp.float64)
    return {"out": (x @ w.T + inputs["bias"].astype(xp.float64)).reshape(-1)}
