"""Write constraints.txt: the versions installed now of everything `pip install -e '.[dev]'` installs.

Starts from pyproject.toml (the dependencies and the dev extra), follows every requirement
through the installed distributions' metadata (importlib.metadata; markers evaluated for this
interpreter, each requirement's own extras followed), and pins every package reached at its installed version; kernelpro itself is
left out. Run it after changing the environment on purpose:

    python3 scripts/write_constraints.py && python3 -m pip install -c constraints.txt -e '.[dev]'
"""
from __future__ import annotations

import importlib.metadata as md
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
HEADER = """\
# Exact versions for `python3 -m pip install -c constraints.txt -e '.[dev]'` (README, .ci/run):
# every package that install brings (kernelpro's dependencies and the dev extra, followed to the
# end), pinned at what the CI machine runs. pyproject.toml keeps the floors (past known CVEs);
# this file keeps installs repeatable. Regenerate with scripts/write_constraints.py.
"""


def direct_requirements(extras: tuple[str, ...] = ("dev",)) -> list[Requirement]:
    """kernelpro's dependencies and those of ``extras``, as pyproject.toml states them now."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    texts = list(project["dependencies"])
    for extra in extras:
        texts += project["optional-dependencies"][extra]
    return [Requirement(t) for t in texts]


def _wanted(req: Requirement, extras) -> bool:
    return not req.marker or any(req.marker.evaluate({"extra": e}) for e in set(extras) | {""})


def closure(extras: tuple[str, ...] = ("dev",)) -> dict[str, str]:
    """{canonical name: installed version} of every distribution kernelpro[extras] requires."""
    found: dict[str, str] = {}
    todo = [(r.name, frozenset(r.extras)) for r in direct_requirements(extras) if _wanted(r, ())]
    done = set()
    while todo:
        name, wanted = todo.pop()
        key = (canonicalize_name(name), wanted)
        if key in done:
            continue
        done.add(key)
        dist = md.distribution(name)
        found[canonicalize_name(name)] = dist.version
        for text in dist.requires or []:
            req = Requirement(text)
            if _wanted(req, wanted):
                todo.append((req.name, frozenset(req.extras)))
    found.pop("kernelpro", None)
    return found


def main() -> int:
    pins = closure()
    text = HEADER + "".join(f"{name}=={pins[name]}\n" for name in sorted(pins))
    (ROOT / "constraints.txt").write_text(text)
    print(f"constraints.txt: {len(pins)} packages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
