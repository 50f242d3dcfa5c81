"""Reference for the transpose (CuPy on the GPU where installed, else numpy)."""


def transpose(inputs, sizes, xp):
    h, w = sizes["H"], sizes["W"]
    return {"out": xp.ascontiguousarray(inputs["inp"].reshape(h, w).T).reshape(-1)}
