"""Reference for the residual family."""


def residual(inputs, sizes):
    return {"out": inputs["inp1"] + inputs["inp2"]}
