"""Write a smaller copy of a Ray wheel for the GPU machine, whose transfers are capped at 64 MiB.

Drops what KernelPro's actors never load: the Java worker (ray/jars, 31 MB), the dashboard's
web client, and the libraries built on Ray core (RLlib, Data, Serve, Tune, Train, LLM). RECORD
loses the dropped files' lines, so pip installs the rest as usual.

    python scripts/trim_ray_wheel.py ray-2.60.0-cp312-cp312-manylinux2014_x86_64.whl OUT_DIR
"""
from __future__ import annotations

import sys
import zipfile
from pathlib import Path

DROP = ("ray/jars/", "ray/dashboard/client/", "ray/rllib/", "ray/data/", "ray/serve/", "ray/tune/", "ray/train/",
        "ray/llm/")


def trim(src: Path, out_dir: Path) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    dst = out_dir / src.name
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            name = info.filename
            if name.startswith(DROP):
                continue
            data = zin.read(info)
            if name.endswith(".dist-info/RECORD"):
                lines = data.decode().splitlines()
                data = ("\n".join(line for line in lines if not line.startswith(DROP)) + "\n").encode()
            zout.writestr(info, data, compress_type=zipfile.ZIP_DEFLATED)
    return dst


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1].strip())
    out = trim(Path(sys.argv[1]), Path(sys.argv[2]))
    print(f"{out}: {out.stat().st_size / 2**20:.1f} MiB")
