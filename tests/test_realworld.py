"""Static tools on the shapes real CUDA code takes (issue 11): templates, headers, paths,
code switched off by the preprocessor, register-tiled kernels, read-only pointers."""
from __future__ import annotations

import shutil
from pathlib import Path

from kernelpro.profilers.profile import profile_file

EX = Path(__file__).resolve().parent.parent / "examples"


def rules(rep) -> set[str]:
    return {a.rule for a in rep.advice}


def test_non_ascii_folder_keeps_the_sass_rules(tmp_path):
    # nvdisasm writes the path with octal escapes ("\303\274"): every SASS line must still match
    d = tmp_path / "ü 中文"
    d.mkdir()
    shutil.copy(EX / "a_slow_math.cu", d / "a_slow_math.cu")
    rep = profile_file(d / "a_slow_math.cu")
    assert rep.ok
    slow = [a for a in rep.advice if a.rule == "slow-math-in-loop"]
    assert slow and all(a.file == str((d / "a_slow_math.cu").resolve()) for a in slow)
