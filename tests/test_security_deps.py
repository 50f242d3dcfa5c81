"""Dependency floors past known CVEs (pyproject.toml) and exact versions for installs (constraints.txt)."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
# (the last affected release, the first fixed one) of each known CVE, as the package's changelog
# or advisory states it
FLOORS = {
    "gitpython": ("3.1.40", Version("3.1.41")),  # CVE-2024-22190 (untrusted search path on Windows)
    "pytest": ("9.0.2", Version("9.0.3")),  # CVE-2025-71176 (tmpdir under a predictable /tmp/pytest-of-<user>)
}


def project():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def direct() -> dict[str, Requirement]:
    """kernelpro's dependencies and its dev extra (what `pip install -e '.[dev]'` asks for)."""
    p = project()
    reqs = [Requirement(t) for t in p["dependencies"] + p["optional-dependencies"]["dev"]]
    return {canonicalize_name(r.name): r for r in reqs}


def pins() -> dict[str, str]:
    out = {}
    for n, line in enumerate((ROOT / "constraints.txt").read_text().splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([0-9][A-Za-z0-9.+!-]*)", line)
        assert m, f"constraints.txt:{n}: {line!r} is not NAME==VERSION"
        name = canonicalize_name(m.group(1))
        assert name not in out, f"constraints.txt:{n}: {name} pinned twice"
        out[name] = m.group(2)
    return out


def floor(req: Requirement) -> Version | None:
    lows = [Version(s.version) for s in req.specifier if s.operator in (">=", "==", "~=", ">")]
    return max(lows) if lows else None


def test_floors_are_past_known_cves():
    reqs = direct()
    for name, (affected, least) in FLOORS.items():
        assert name in reqs, name
        got = floor(reqs[name])
        assert got is not None and got >= least, f"{name}: floor {got} is below {least}"
        assert not reqs[name].specifier.contains(affected, prereleases=True), (
            f"{name}: {reqs[name].specifier} admits {affected}")


def test_every_direct_dependency_is_pinned_exactly():
    p = pins()
    assert "kernelpro" not in p
    for name, req in direct().items():
        assert name in p, f"{name} (pyproject.toml) is not pinned in constraints.txt"
        assert req.specifier.contains(p[name], prereleases=True), (
            f"constraints.txt pins {name}=={p[name]}, outside pyproject.toml's {req.specifier}")


def test_pinned_versions_are_past_the_floors():
    p = pins()
    for name, (_affected, least) in FLOORS.items():
        assert Version(p[name]) >= least, f"constraints.txt pins {name}=={p[name]}, below {least}"
    assert Version(p["gitpython"]) in direct()["gitpython"].specifier


def test_ci_and_readme_install_with_the_constraints():
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^python3 -m pip install .*-c constraints\.txt .*-e '\.\[dev\]'", ci, re.M), ci
    readme = (ROOT / "README.md").read_text()
    first = re.search(r"```bash\n(.*?)\n", readme).group(1)
    assert first.startswith("python3 -m pip install -c constraints.txt -e '.[dev]' && kernelpro profile "), first
