"""Reference for the RMS-normalization family (float64 on the bf16 inputs; CuPy or numpy)."""


def rmsnorm(inputs, sizes, xp):
    n, c = sizes["N"], sizes["C"]
    x = inputs["inp"].reshape(n, c).astype(xp.float64)
    s = 1.0 / xp.sqrt((x * x).mean(axis=1) + 1e-6)
    return {"out": (x * s[:, None] * inputs["weight"].astype(xp.float64)).reshape(-1), "rstd": s}
