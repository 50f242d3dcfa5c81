"""Reference for the embedding family: out[b, t] = wte[tokens[b, t]] + wpe[t] (float32 sums)."""
import numpy as np


def encoder(inputs, sizes):
    b, t, c = sizes["B"], sizes["T"], sizes["C"]
    tok = inputs["tokens"].reshape(b, t)
    wte = inputs["wte"].reshape(-1, c)
    wpe = inputs["wpe"].reshape(t, c)
    return {"out": (wte[tok].astype(np.float32) + wpe[None, :, :]).reshape(-1)}
