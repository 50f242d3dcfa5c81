"""Reference for the inclusive scan (int64 sums, below 2^31 for the spec's fill; CuPy or numpy)."""


def scan(inputs, sizes, xp):
    return {"out": xp.cumsum(inputs["inp"].astype(xp.int64)).astype(xp.int32)}
