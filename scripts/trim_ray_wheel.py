"""Write a smaller copy of a Ray wheel for the GPU machine, whose transfers are capped at 64 MiB in all.

Drops what KernelPro's actors never load: the Java worker (ray/jars, 31 MB), the dashboard's web
client, and the libraries built on Ray core (RLlib, Data, Serve, Tune, Train, LLM); strips the symbol
tables of the native binaries (raylet, gcs_server, _raylet.so: `strip --strip-unneeded`, what a
debugger would read, nothing they run on); and compresses with LZMA, which Python's zipfile (and so
pip) reads. RECORD gets the new hashes and sizes, so pip installs the rest as usual.
From the 79 MB wheel of Ray 2.60.0 (cp312, manylinux2014_x86_64) this leaves about 24 MiB.

    python scripts/trim_ray_wheel.py ray-2.60.0-cp312-cp312-manylinux2014_x86_64.whl OUT_DIR
"""
from __future__ import annotations

import base64
import hashlib
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

DROP = ("ray/jars/", "ray/dashboard/client/", "ray/rllib/", "ray/data/", "ray/serve/", "ray/tune/", "ray/train/",
        "ray/llm/")


def stripped(name: str, data: bytes) -> bytes:
    """An ELF file without its symbol tables (unchanged when `strip` is missing or fails)."""
    if not data.startswith(b"\x7fELF") or shutil.which("strip") is None:
        return data
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / Path(name).name
        p.write_bytes(data)
        if subprocess.run(["strip", "--strip-unneeded", str(p)], capture_output=True).returncode != 0:
            return data
        return p.read_bytes()


def record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def trim(src: Path, out_dir: Path) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    dst = out_dir / src.name
    record_name, lines = None, []
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_LZMA) as zout:
        for info in zin.infolist():
            name = info.filename
            if name.startswith(DROP):
                continue
            if name.endswith(".dist-info/RECORD"):
                record_name = name
                continue
            data = stripped(name, zin.read(info))
            zout.writestr(info, data, compress_type=zipfile.ZIP_LZMA)
            if not name.endswith("/"):
                lines.append(record_line(name, data))
        if record_name is None:
            sys.exit(f"{src}: no .dist-info/RECORD: not a wheel")
        zout.writestr(record_name, "\n".join(lines + [f"{record_name},,"]) + "\n", compress_type=zipfile.ZIP_LZMA)
    return dst


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1].strip())
    out = trim(Path(sys.argv[1]), Path(sys.argv[2]))
    print(f"{out}: {out.stat().st_size / 2**20:.1f} MiB")
