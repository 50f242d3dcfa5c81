"""Reference for the 3x3 convolution with literal weights (float64; CuPy on the GPU where installed, else numpy)."""

WEIGHTS = ((0.0625, 0.125, -0.0625),
           (0.25, 0.5, 0.125),
           (-0.125, 0.25, 0.0625))


def conv3x3(inputs, sizes, xp):
    h, w = sizes["H"], sizes["W"]
    x = xp.zeros((h + 2, w + 2), dtype=xp.float64)
    x[1:-1, 1:-1] = inputs["inp"].reshape(h, w)
    out = xp.zeros((h, w), dtype=xp.float64)
    for di in range(3):
        for dj in range(3):
            out += WEIGHTS[di][dj] * x[di:di + h, dj:dj + w]
    return {"out": out.reshape(-1)}
