"""A stand-in GPU for the Ray backend's tests (a test double, named as such): the fake pycuda of
tests/fake_pycuda.py with one more fake kernel, `standin_add`, so the real GpuEvaluator and its worker
process run under CPU-only Ray actors.

`standin_add` computes out = a + b like vecadd. Its "time" comes from the compiled code (a CRC of the
cubin's .text sections: a different candidate, a different time, the same one every run), scaled by
`kp_speed_N...` device variables (N percent) in the candidate; a candidate that declares `kp_hang` hangs
(first writing a file named by its pid into $KERNELPRO_STANDIN_HANGS when that is set) and one that
declares `kp_crash` poisons the context, as a bad kernel would.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import fake_pycuda

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent / "examples" / "gpu"

STANDIN_KERNELS = r'''
import re
import zlib

def standin_add(args, grid, block):
    names = set(GLOBALS)
    if "kp_hang" in names:
        import os
        if os.environ.get("KERNELPRO_STANDIN_HANGS"):  # tests wait for this file, not for a fixed time
            open(os.path.join(os.environ["KERNELPRO_STANDIN_HANGS"], str(os.getpid())), "w").close()
        time.sleep(1000)
    if "kp_crash" in names:
        raise Sticky("an illegal memory access was encountered")
    out, a, b = (x.view(np.float32) for x in args[:3])
    n = int(args[3])
    out[:n] = a[:n] + b[:n]
    cub = MODULE.cubin
    code = b"".join(cub.bytes_of(s) for s in cub.sections if s.name.startswith(".text"))
    t = 1e-4 * (1.0 + (zlib.crc32(code) % 1000) / 1000.0)
    for name in names:
        m = re.match(r"kp_speed_(\d+)", name)
        if m:
            t *= int(m.group(1)) / 100.0
    return t

KERNELS["standin_add"] = KERNELS["standin_other"] = standin_add
'''

KERNEL = """// out = a + b, run by the stand-in GPU of tests/ray_standin.py
__global__ void standin_add(float* out, const float* a, const float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + b[i] * 1.0;
}
"""


def standin_env(root: Path) -> dict[str, str]:
    """The environment variables that make a GPU worker process import the stand-in pycuda."""
    hook = "fake_kernels.GLOBALS = self.module.globals"
    assert hook in fake_pycuda.FAKE_DRIVER, "tests/fake_pycuda.py changed: update ray_standin.py"
    driver = fake_pycuda.FAKE_DRIVER.replace(hook, hook + "; fake_kernels.MODULE = self.module")
    (root / "pycuda").mkdir(parents=True, exist_ok=True)
    (root / "pycuda" / "__init__.py").write_text("")
    (root / "pycuda" / "driver.py").write_text(driver)
    (root / "pycuda" / "fake_kernels.py").write_text(fake_pycuda.FAKE_KERNELS + STANDIN_KERNELS)
    (root / "pynvml.py").write_text(fake_pycuda.FAKE_NVML)
    (root / "hangs").mkdir(exist_ok=True)
    return {"PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]),
            "KERNELPRO_HOST_CHECKS": "1", "KERNELPRO_STANDIN_HANGS": str(root / "hangs")}


def standin_project(root: Path, name: str = "standin", kernel: str = "standin_add") -> Path:
    """NAME.cu and its launch spec (two small sizes) in `root`; returns the .cu path. The kernel is
    standin_add or standin_other (the same stand-in)."""
    root.mkdir(parents=True, exist_ok=True)
    cu = root / f"{name}.cu"
    cu.write_text(KERNEL.replace("standin_add", kernel))
    spec = (EXAMPLES / "vecadd.kernelpro.toml").read_text()
    spec = spec.replace('kernel = "vecadd"', f'kernel = "{kernel}"')
    spec = spec.replace("small = { n = 1000003 }", "small = { n = 4099 }")
    spec = spec.replace("large = { n = 67108864 }", "large = { n = 65536 }")
    assert "4099" in spec and "65536" in spec and kernel in spec
    (root / f"{name}.kernelpro.toml").write_text(spec)
    shutil.copy(EXAMPLES / "vecadd_ref.py", root / "vecadd_ref.py")
    return cu
