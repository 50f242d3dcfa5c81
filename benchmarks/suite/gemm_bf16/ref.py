"""Reference for the bf16 matrix product (float64 on the bf16 inputs decoded to float; CuPy on the GPU
where installed)."""


def gemm_bf16(inputs, sizes, xp):
    m, n, k = sizes["M"], sizes["N"], sizes["K"]
    a = inputs["A"].reshape(m, k).astype(xp.float64)
    b = inputs["B"].reshape(k, n).astype(xp.float64)
    return {"C": (a @ b).reshape(-1)}
