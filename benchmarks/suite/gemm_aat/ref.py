"""Reference for the Gram matrix C = A A^T (float64; CuPy on the GPU where installed)."""


def gram(inputs, sizes, xp):
    n, k = sizes["N"], sizes["K"]
    a = inputs["A"].reshape(n, k).astype(xp.float64)
    return {"C": (a @ a.T).reshape(-1)}
