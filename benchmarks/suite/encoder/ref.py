"""Reference for the embedding family: out[b, t] = wte[tokens[b, t]] + wpe[t] (CuPy or numpy)."""


def encoder(inputs, sizes, xp):
    b, t, c = sizes["B"], sizes["T"], sizes["C"]
    tok = inputs["tokens"].reshape(b, t)
    wte = inputs["wte"].reshape(-1, c)
    wpe = inputs["wpe"].reshape(t, c)
    return {"out": (wte[tok].astype(xp.float32) + wpe[None, :, :]).reshape(-1)}
