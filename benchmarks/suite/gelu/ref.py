"""Reference for the GELU family (float64 math on the bf16 inputs, decoded to float32)."""
import numpy as np


def gelu(inputs, sizes):
    x = inputs["x"].astype(np.float64)
    return {"y": 0.5 * x * (1.0 + np.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))}
