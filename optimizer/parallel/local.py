"""The local Ray instance of `--workers auto|N`: reachable from this machine only, and only with its token.

Loopback. Ray's servers (GCS, raylet, object manager, each worker's RPC server, the agents) listen on all
interfaces unless the node's address is 127.0.0.1, when they bind to loopback. `ray.init` turns
`_node_ip_address="127.0.0.1"` into the machine's routable address unless Ray runs as a one-machine
instance (Ray's `ENABLE_RAY_CLUSTER` off, its default on macOS and Windows), so the switch is off for the
call that starts the instance. A local instance has one node, so nothing needs to reach it from outside.

Token authentication (Ray 2.59 and later: `RAY_AUTH_MODE=token`): every RPC and HTTP entry point of the
instance wants the token. Left alone, Ray would use or write `~/.ray/auth_token`, one token (mode 0644)
shared by every Ray instance of the user; the instance gets a fresh random token in `RAY_AUTH_TOKEN`
instead, which only this process and the Ray processes it starts (its children, which inherit the
environment) hold. When the instance is shut down the environment is put back.

Files. Ray makes its session folders (its Unix sockets, logs, spilled objects) writable by everyone
under /tmp/ray, so another user could replace the raylet's socket; the instance's temp folder is a new
folder inside a new private one (mode 0700, `tempfile.mkdtemp`; Ray makes the folder it is given
writable by everyone too), removed when the instance is shut down.

A cluster given by address (`--workers HOST:PORT`, `ray://HOST:PORT`) is the user's: its listeners and its
authentication are the cluster's own, and nothing here touches them.
"""
from __future__ import annotations

import os
import re
import secrets
import shutil
import tempfile

from .workers import INSTALL, WorkersError

MIN_RAY = (2, 59)  # token authentication on by default for local instances
LOOPBACK = "127.0.0.1"
AUTH_VARS = ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH")


def ray_version_problem(version: str) -> str | None:
    nums = [int(x) for x in re.findall(r"\d+", version or "")[:2]]
    if len(nums) == 2 and tuple(nums) >= MIN_RAY:
        return None
    return (f"--workers: Ray {version or '?'} has no token authentication for the local instance; "
            f"Ray {MIN_RAY[0]}.{MIN_RAY[1]} or later is needed: {INSTALL}")


def _reload_auth() -> None:
    """Make this process's Ray core read the authentication settings from the environment again: the mode
    is cached in RayConfig and the token in AuthenticationTokenLoader (Ray's own tests do the same between
    clusters). The config first, so nothing reloads a token while the old mode still holds."""
    try:
        from ray._raylet import AuthenticationTokenLoader, Config
    except ImportError as e:  # older than MIN_RAY, which ray_version_problem refuses first
        raise WorkersError(f"--workers: this Ray has no token authentication ({e}): {INSTALL}") from None
    Config.initialize("")
    AuthenticationTokenLoader.instance().reset_cache()


def token_auth_on() -> bool:
    try:
        from ray._private.authentication.authentication_utils import is_token_auth_enabled
    except ImportError:
        return False
    return bool(is_token_auth_enabled())


class LocalInstance:
    """Start (`start`) and shut down (`stop`) the local Ray instance of one backend."""

    def __init__(self, ray):
        self.ray = ray
        self.saved: dict[str, str | None] | None = None  # the auth variables before start
        self.temp_dir: str | None = None  # private (0700); Ray's temp folder is inside it

    def start(self, **init_kw) -> None:
        ray = self.ray
        problem = ray_version_problem(getattr(ray, "__version__", ""))
        if problem:
            raise WorkersError(problem)
        self.saved = {k: os.environ.get(k) for k in AUTH_VARS}
        os.environ.pop("RAY_AUTH_TOKEN_PATH", None)
        os.environ["RAY_AUTH_MODE"] = "token"
        os.environ["RAY_AUTH_TOKEN"] = secrets.token_hex(32)
        try:
            _reload_auth()
            from ray._private import ray_constants

            self.temp_dir = tempfile.mkdtemp(prefix="kp-ray-")  # short: Ray's socket paths must fit 107 bytes
            cluster = ray_constants.ENABLE_RAY_CLUSTER
            ray_constants.ENABLE_RAY_CLUSTER = False  # "127.0.0.1" stays the node's address
            try:
                # "local": a new instance for this run, never a cluster that happens to run here
                ray.init(address="local", _node_ip_address=LOOPBACK, _temp_dir=os.path.join(self.temp_dir, "r"),
                         **{**init_kw, "include_dashboard": False})
            finally:
                ray_constants.ENABLE_RAY_CLUSTER = cluster
            problem = self.problem()
        except BaseException:
            self.stop()
            raise
        if problem:
            self.stop()
            raise WorkersError(problem)

    def problem(self) -> str | None:
        """Why the started instance is not loopback-only with token authentication (None when it is)."""
        ip = self.ray.util.get_node_ip_address()
        if ip != LOOPBACK:
            return (f"--workers: the local Ray instance took the address {ip}, not {LOOPBACK}, so it would listen "
                    f"on the network (Ray {self.ray.__version__}); it was shut down")
        if not token_auth_on():
            return (f"--workers: the local Ray instance started without token authentication "
                    f"(Ray {self.ray.__version__}); it was shut down")
        return None

    def stop(self) -> None:
        if self.ray.is_initialized():
            self.ray.shutdown()
        if self.temp_dir is not None:
            shutil.rmtree(self.temp_dir, ignore_errors=True)
            self.temp_dir = None
        if self.saved is not None:
            for k, v in self.saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
            self.saved = None
            _reload_auth()
