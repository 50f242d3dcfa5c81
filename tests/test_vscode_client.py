"""The VS Code client's own unit tests and its package, run from pytest so one command covers all."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CLIENT = Path(__file__).resolve().parent.parent / "vscode-client"
NPM = shutil.which("npm")
pytestmark = pytest.mark.skipif(NPM is None and not os.environ.get("CI"), reason="npm not installed")


def npm(*args, timeout=600):
    # the client's candidate tests run the kernelpro command line with this Python
    env = dict(os.environ, KERNELPRO_PYTHON=sys.executable)
    return subprocess.run([NPM or "npm", *args], cwd=CLIENT, capture_output=True, text=True, timeout=timeout, env=env)


@pytest.fixture(scope="module")
def installed():
    if not (CLIENT / "node_modules").is_dir():
        r = npm("ci", "--no-audit", "--no-fund", "--loglevel=error")
        assert r.returncode == 0, r.stderr[-2000:]


def test_client_unit_tests_pass(installed):
    r = npm("test")
    assert r.returncode == 0, (r.stdout + r.stderr)[-3000:]
    assert "# fail 0" in r.stdout and "# pass" in r.stdout


def test_client_packages_as_vsix(installed, tmp_path):
    r = npm("run", "package")
    assert r.returncode == 0, (r.stdout + r.stderr)[-3000:]
    vsix = sorted(CLIENT.glob("kernelpro-*.vsix"))
    assert vsix and vsix[-1].stat().st_size > 10_000
