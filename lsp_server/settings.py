"""The `kernelpro` settings section: defaults, merging, and the CompileOptions they imply."""
from __future__ import annotations

import copy
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kernelpro.profilers.children import python_command
from kernelpro.profilers.compile import CompileOptions

from .project import parse_command, project_flags

DEFAULTS: dict[str, Any] = {
    "nvccPath": "",
    "arch": "auto",  # "auto": compile_commands.json's, else sm_90
    "compileCommands": "",  # compile_commands.json (or its folder); empty: searched like clangd
    "includePaths": [],
    "defines": [],
    "extraFlags": [],
    "profileOn": "save",  # "save" | "type" | "open"
    "typingDelayMs": 800,
    "gpuProfileOnSave": False,
    "useCache": True,
    "inlayHints": True,  # per-line SASS facts (and measured counters) at the end of lines
    "llm": {"baseUrl": "", "model": ""},
    "optimize": {"budget": 20, "objective": "time", "workers": ""},  # workers: --workers (empty: one GPU)
    "optimizerCommand": [],  # empty: [python, -m, kernelpro.optimizer]
}

# settings that name a program to run or an endpoint to talk to: a client over --tcp or --socket may be
# any local process, so the server ignores these when such a client sends them (Settings.without_programs)
PROGRAM_KEYS = ("nvccPath", "optimizerCommand", "extraFlags", "compileCommands", "llm.baseUrl", "optimize.workers")


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

    def without_programs(self) -> tuple["Settings", list[str]]:
        """These settings with those of PROGRAM_KEYS back at their defaults, and the keys that were set."""
        raw, ignored = copy.deepcopy(self.raw), []
        for key in PROGRAM_KEYS:
            *parents, leaf = key.split(".")
            item, default = raw, DEFAULTS
            for part in parents:
                item, default = item.get(part) if isinstance(item, dict) else None, default[part]
            if isinstance(item, dict) and leaf in item and item[leaf] != default[leaf]:
                item[leaf] = copy.deepcopy(default[leaf])
                ignored.append(key)
        return Settings(raw), ignored

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

    def compile_options(self, path: str | None = None, trusted: bool = True, roots: tuple[str, ...] = ()) -> CompileOptions:
        """nvcc options for `path`: its project's compile_commands.json (only in a trusted
        workspace, never above its folder), then the settings on top (an explicit `arch`, more
        include paths, defines, and `extraFlags` through the database's filter). Raises ProjectError."""
        arch = str(self.raw.get("arch") or "auto")
        x_incs, x_defs, flags, _dropped = self.extra_flags(path)
        incs = _strings(self.raw.get("includePaths")) + x_incs
        defs = _strings(self.raw.get("defines")) + x_defs
        proj = project_flags(path, str(self.raw.get("compileCommands") or ""), roots) if path and trusted else None
        if proj is not None:
            incs, defs, flags = proj.include_paths + incs, proj.defines + defs, proj.extra_flags + flags
            if arch == "auto" and proj.arch:
                arch = proj.arch
        return CompileOptions(arch="sm_90" if arch == "auto" else arch, include_paths=incs, defines=defs, extra_flags=flags)

    def extra_flags(self, path: str | None = None) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], list[str]]:
        """`extraFlags` through the compile database's filter: (include paths, defines, the flags
        kept (what changes code generation), the flags dropped (host compiler, output and
        dependency files, ...)); relative paths are relative to the file's folder."""
        dropped: list[str] = []
        folder = str(Path(path).parent) if path else os.getcwd()
        _arch, incs, defs, kept = parse_command(["nvcc", *_strings(self.raw.get("extraFlags"))], folder, dropped)
        return tuple(incs), tuple(defs), tuple(kept), dropped

    def toolchain_settings(self) -> dict[str, str]:
        nvcc = self.raw.get("nvccPath")
        return {"nvcc": str(nvcc)} if nvcc else {}

    def optimizer_argv(self, path: str, kernel: str) -> list[str]:
        # the default child ends itself when this server dies (--parent); -P: no working directory on sys.path
        base = [str(x) for x in (self.raw.get("optimizerCommand") or [])] or \
            python_command("kernelpro.optimizer", "--parent", str(os.getpid()))
        argv = base + ["optimize", path, "--kernel", kernel,
                       "--budget", str(int(self.get("optimize.budget") or 20)),
                       "--objective", str(self.get("optimize.objective") or "time"), "--json-events"]
        if str(self.get("optimize.workers") or "").strip():
            argv += ["--workers", str(self.get("optimize.workers")).strip()]
        if self.get("llm.baseUrl"):
            argv += ["--llm-base-url", str(self.get("llm.baseUrl"))]
        if self.get("llm.model"):
            argv += ["--llm-model", str(self.get("llm.model"))]
        return argv

    def profile_key(self) -> tuple:
        """What a static profile depends on: a change re-profiles open files."""
        keys = ("arch", "compileCommands", "includePaths", "defines", "extraFlags")
        return (repr([self.raw.get(k) for k in keys]), tuple(self.toolchain_settings().items()), self.use_cache)
