"""Reference for the 7-point 3-D stencil (float64; CuPy on the GPU where installed, else numpy)."""


def stencil3d(inputs, sizes, xp):
    d, h, w = sizes["D"], sizes["H"], sizes["W"]
    x = inputs["inp"].reshape(d, h, w).astype(xp.float64)
    out = inputs["out"].reshape(d, h, w).astype(xp.float64)
    if d > 2 and h > 2 and w > 2:
        c = (slice(1, -1),) * 3
        out[c] = 0.4 * x[c] + 0.1 * (x[:-2, 1:-1, 1:-1] + x[2:, 1:-1, 1:-1] + x[1:-1, :-2, 1:-1]
                                     + x[1:-1, 2:, 1:-1] + x[1:-1, 1:-1, :-2] + x[1:-1, 1:-1, 2:])
    return {"out": out.reshape(-1)}
