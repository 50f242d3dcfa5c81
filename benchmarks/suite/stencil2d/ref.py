"""Reference for the 5-point 2-D stencil (float64; CuPy on the GPU where installed, else numpy)."""


def stencil2d(inputs, sizes, xp):
    h, w = sizes["H"], sizes["W"]
    x = inputs["inp"].reshape(h, w).astype(xp.float64)
    out = inputs["out"].reshape(h, w).astype(xp.float64)
    if h > 2 and w > 2:
        out[1:-1, 1:-1] = 0.6 * x[1:-1, 1:-1] + 0.1 * (x[:-2, 1:-1] + x[2:, 1:-1] + x[1:-1, :-2] + x[1:-1, 2:])
    return {"out": out.reshape(-1)}
