"""Reference for the column matrix-vector product y = x A (float64; CuPy on the GPU where installed, else numpy)."""


def colmatvec(inputs, sizes, xp):
    a = inputs["A"].reshape(sizes["M"], sizes["N"]).astype(xp.float64)
    return {"y": inputs["x"].astype(xp.float64) @ a}
