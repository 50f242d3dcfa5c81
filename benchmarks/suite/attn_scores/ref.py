"""Reference for causal attention scores (float64; CuPy on the GPU where installed): S[h, i, j] =
scale * Q[h, i] . K[h, j] for j <= i, -inf above the diagonal."""


def attn_scores(inputs, sizes, xp):
    h, t, d = sizes["H"], sizes["T"], sizes["D"]
    q = inputs["Q"].reshape(h, t, d).astype(xp.float64)
    k = inputs["K"].reshape(h, t, d).astype(xp.float64)
    s = 0.125 * (q @ k.transpose(0, 2, 1))
    upper = xp.arange(t)[None, :] > xp.arange(t)[:, None]  # column past row: masked
    return {"S": xp.where(upper[None], -xp.inf, s).reshape(-1)}
