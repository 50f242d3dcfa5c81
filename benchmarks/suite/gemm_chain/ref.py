"""Reference for the chain D = (A B) C (float64; CuPy on the GPU where installed)."""


def chain(inputs, sizes, xp):
    m, k, n, p = sizes["M"], sizes["K"], sizes["N"], sizes["P"]
    a = inputs["A"].reshape(m, k).astype(xp.float64)
    b = inputs["B"].reshape(k, n).astype(xp.float64)
    c = inputs["C"].reshape(n, p).astype(xp.float64)
    return {"D": ((a @ b) @ c).reshape(-1)}
