"""Threads per block from the launch spec beside a .cu file (loads the spec machinery only when one exists)."""
from __future__ import annotations

from pathlib import Path


def spec_block_sizes(cu_path: str | Path) -> tuple[dict[str, int] | None, str | None]:
    """Threads per block of the launch spec beside the file, and a note when it is unusable."""
    if not Path(cu_path).with_name(f"{Path(cu_path).stem}.kernelpro.toml").is_file():
        return None, None  # the common case, without loading the spec machinery
    from .runtime.spec import find_spec, load_spec

    found = find_spec(cu_path)
    if found is None:
        return None, None
    try:
        spec = load_spec(found)
        return {spec.kernel: spec.block_threads()}, None
    except Exception as e:  # an invalid spec: the profile goes on with the other block sources
        return None, f"launch spec {Path(found).name} not used: {e}"
