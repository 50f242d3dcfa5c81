"""The `kernelpro` settings section: defaults, merging, and the CompileOptions they imply."""
from __future__ import annotations

import copy
import sys
from dataclasses import dataclass
from typing import Any

from kernelpro.profilers.compile import CompileOptions

DEFAULTS: dict[str, Any] = {
    "nvccPath": "",
    "arch": "sm_90",
    "includePaths": [],
    "defines": [],
    "extraFlags": [],
    "profileOn": "save",  # "save" | "type" | "open"
    "typingDelayMs": 800,
    "gpuProfileOnSave": False,
    "useCache": True,
    "llm": {"baseUrl": "", "model": ""},
    "optimize": {"budget": 20, "objective": "time"},
    "optimizerCommand": [],  # empty: [python, -m, kernelpro.optimizer]
}


def _merge(base: dict, extra: dict) -> dict:
    out = copy.deepcopy(base)
    for key, value in (extra or {}).items():
        if "." in key:  # a flat key such as "llm.model"
            head, rest = key.split(".", 1)
            value, key = {rest: value}, head
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _strings(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(v for v in value.split() if v)
    return tuple(str(v) for v in value or ())


@dataclass
class Settings:
    raw: dict[str, Any]

    @classmethod
    def from_json(cls, data: Any) -> "Settings":
        return cls(_merge(DEFAULTS, data if isinstance(data, dict) else {}))

    def updated(self, data: Any) -> "Settings":
        return Settings(_merge(self.raw, data if isinstance(data, dict) else {}))

    def get(self, dotted: str) -> Any:
        item: Any = self.raw
        for part in dotted.split("."):
            item = item.get(part) if isinstance(item, dict) else None
        return item

    @property
    def profile_on(self) -> str:
        v = self.raw.get("profileOn")
        return v if v in ("save", "type", "open") else "save"

    @property
    def typing_delay_s(self) -> float:
        try:
            return max(0.0, float(self.raw.get("typingDelayMs", 800))) / 1000
        except (TypeError, ValueError):
            return 0.8

    @property
    def use_cache(self) -> bool:
        return bool(self.raw.get("useCache", True))

    def compile_options(self) -> CompileOptions:
        return CompileOptions(
            arch=str(self.raw.get("arch") or "sm_90"),
            include_paths=_strings(self.raw.get("includePaths")),
            defines=_strings(self.raw.get("defines")),
            extra_flags=_strings(self.raw.get("extraFlags")),
        )

    def toolchain_settings(self) -> dict[str, str]:
        nvcc = self.raw.get("nvccPath")
        return {"nvcc": str(nvcc)} if nvcc else {}

    def optimizer_argv(self, path: str, kernel: str) -> list[str]:
        base = [str(x) for x in (self.raw.get("optimizerCommand") or [])] or [sys.executable, "-m", "kernelpro.optimizer"]
        argv = base + ["optimize", path, "--kernel", kernel,
                       "--budget", str(int(self.get("optimize.budget") or 20)),
                       "--objective", str(self.get("optimize.objective") or "time"), "--json-events"]
        if self.get("llm.baseUrl"):
            argv += ["--llm-base-url", str(self.get("llm.baseUrl"))]
        if self.get("llm.model"):
            argv += ["--llm-model", str(self.get("llm.model"))]
        return argv

    def profile_key(self) -> tuple:
        """What a static profile depends on: a change re-profiles open files."""
        return (self.compile_options(), tuple(self.toolchain_settings().items()), self.use_cache)
