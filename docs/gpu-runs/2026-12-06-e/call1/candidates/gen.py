import json, os, sys
from kernelpro.optimizer.restructure import api
from kernelpro.profilers.source import parse_source
from kernelpro.profilers.runtime.spec import load_spec
out = "benchmarks/scratch"
def gen(fam, kern, picks):
    p = f"benchmarks/suite/{fam}/naive.cu"; text = open(p).read()
    spec = open(f"benchmarks/suite/{fam}/naive.kernelpro.toml").read()
    import tomllib; sp = tomllib.loads(spec)
    grid, block = sp["launch"]["grid"], sp["launch"]["block"]
    k = parse_source(text).kernel(kern)
    sizes = sp["sizes"]
    ctx = api.Context(kernel=kern, path=p, launch={"grid": grid, "block": block}, base_launch={"grid": grid, "block": block},
                      size_env=sizes, scalar_params={q.name: q.name for q in k.params if not q.is_pointer})
    plans, why = api.plans(text, ctx)
    os.makedirs(f"{out}/{fam}", exist_ok=True)
    with open(f"{out}/{fam}/naive.cu", "w") as f:
        f.write("// launch: " + json.dumps({"grid": grid, "block": block}) + "\n" + text)
    for name, plan, knobs in picks:
        pl = next(x for x in plans if x.name == plan)
        c = pl.build(knobs)
        with open(f"{out}/{fam}/{name}.cu", "w") as f:
            f.write("// launch: " + json.dumps({"grid": c.launch["grid"], "block": c.launch["block"]}) + "\n" + c.source)
        print(fam, name, c.launch)
M = "stencil-window"; T = "stencil-tile"
picks = [("tile8", T, {"tx": 32, "ty": 8, "rows": 8}), ("tile8w", T, {"tx": 64, "ty": 4, "rows": 8}),
         ("m1", M, {"tx": 32, "ty": 4, "strip": 32, "unroll": 1}), ("m2", M, {"tx": 32, "ty": 4, "strip": 32, "unroll": 2}),
         ("m4", M, {"tx": 32, "ty": 4, "strip": 32, "unroll": 4}), ("m1w", M, {"tx": 128, "ty": 1, "strip": 32, "unroll": 1}),
         ("m2w", M, {"tx": 128, "ty": 1, "strip": 32, "unroll": 2}), ("m1s", M, {"tx": 64, "ty": 2, "strip": 16, "unroll": 1})]
gen("stencil2d", "stencil2d", picks)
gen("conv3x3", "conv3x3", picks)
gen("permute4d", "permute4d", [("gather4", "gather", {"block": 256, "vec": 4}), ("gather4_128", "gather", {"block": 128, "vec": 4})])
gen("stencil3d", "stencil3d", [("win32x8", "stencil-march", {"tx": 32, "ty": 8, "chunk": 32, "regs": 1}),
                               ("win32x4c64", "stencil-march", {"tx": 32, "ty": 4, "chunk": 64, "regs": 1}),
                               ("win64x4", "stencil-march", {"tx": 64, "ty": 4, "chunk": 32, "regs": 1}),
                               ("ring32x8", "stencil-march", {"tx": 32, "ty": 8, "chunk": 32})])
