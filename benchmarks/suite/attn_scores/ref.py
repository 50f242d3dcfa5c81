"""Reference for causal attention scores (float64; CuPy on the GPU where installed): S[h, i, j] =
scale * Q[h, i] . K[h, j] for j <= i, -inf above the diagonal."""


def attn_scores(inputs, sizes, xp):
    h, t, d = sizes["H"], sizes["T"], sizes["D"]
    q = inputs["Q"].reshape(h, t, d).astype(xp.float64)
    k = inputs["K"].reshape(h, t, d).astype(xp.float64)
    s = 0.125 * (q @ k.transpose(0, 2, 1))
    upper = xp.triu(xp.ones((t, t), dtype=bool), 1)
    s[:, upper] = -xp.inf
    return {"S": s.reshape(-1)}
