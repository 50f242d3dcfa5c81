"""Reference for the GELU family (float64 math on the bf16 inputs, decoded to float32); runs on
the GPU with CuPy where installed (xp), else numpy."""


def gelu(inputs, sizes, xp):
    x = inputs["x"].astype(xp.float64)
    return {"y": 0.5 * x * (1.0 + xp.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))}
