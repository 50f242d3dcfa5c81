"""Reference for the float32 matrix product C = alpha A B + beta C (float64; CuPy on the GPU where
installed, numpy otherwise)."""


def sgemm(inputs, sizes, xp):
    m, n, k = sizes["M"], sizes["N"], sizes["K"]
    a = inputs["A"].reshape(m, k).astype(xp.float64)
    b = inputs["B"].reshape(k, n).astype(xp.float64)
    c = inputs["C"].reshape(m, n).astype(xp.float64)
    return {"C": (1.5 * (a @ b) + 0.5 * c).reshape(-1)}
