"""Reference for the 4-D permute (B, N, H, d) -> (B, H, N, d) (CuPy on the GPU where installed, else numpy)."""


def permute4d(inputs, sizes, xp):
    b, n, h, d = sizes["B"], sizes["N"], sizes["H"], sizes["d"]
    x = inputs["inp"].reshape(b, n, h, d)
    return {"out": xp.ascontiguousarray(x.transpose(0, 2, 1, 3)).reshape(-1)}
