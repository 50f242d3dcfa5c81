"""What listens, and whom it lets in (docs/security.md).

- `kernelpro-lsp --tcp` admits only the client whose `initialize` carries the token; `--socket PATH` is a
  Unix socket of mode 0600 in a private folder; a client over either may not name programs in its
  settings (nvccPath and the like are ignored, said in one warning).
- The local Ray instance of `--workers` listens on loopback only and refuses a client without its token.

The servers run as real subprocesses; the clients speak LSP over raw sockets (Content-Length framing).
Waits are bounded only as guards against a hang; nothing asserts on time.
"""
from __future__ import annotations

import json
import os
import queue
import shutil
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from kernelpro.lsp_server.framing import Bad, Framer

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "lsp_fixtures"
GUARD_S = 240  # a hang guard for each wait, never an assertion on time


# ------------------------------------------------------------------ the server and a raw client
class Server:
    """`python -m kernelpro.lsp_server ARGS` with its stderr read line by line."""

    def __init__(self, args: list[str], env: dict[str, str] | None = None):
        full = {k: v for k, v in os.environ.items() if k != "KERNELPRO_LSP_TOKEN"}
        full.update(env or {})
        self.proc = subprocess.Popen([sys.executable, "-m", "kernelpro.lsp_server", *args], stderr=subprocess.PIPE,
                                     stdin=subprocess.DEVNULL, text=True, env=full)
        self.lines: list[str] = []
        self._q: queue.Queue = queue.Queue()
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        for line in self.proc.stderr:
            self._q.put(line.rstrip("\n"))
        self._q.put(None)

    def line(self, start: str) -> str:
        """The first stderr line that starts with `start` (the server's lines are `kernelpro-lsp: ...`)."""
        while True:
            try:
                line = self._q.get(timeout=GUARD_S)
            except queue.Empty:
                raise AssertionError(f"no line {start!r} from the server; it said: {self.lines}") from None
            if line is None:
                raise AssertionError(f"the server ended (rc {self.proc.wait()}) before {start!r}: {self.lines}")
            self.lines.append(line)
            if line.startswith(start):
                return line[len(start):].strip()

    def address(self) -> str:
        return self.line("kernelpro-lsp: listening on")

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            return self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()


def connect_tcp(address: str) -> socket.socket:
    host, port = address.rsplit(":", 1)
    return socket.create_connection((host.strip("[]"), int(port)), timeout=GUARD_S)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def connect_when_up(server: Server, port: int) -> socket.socket:
    """Connect to 127.0.0.1:port once the server listens (without reading what it prints)."""
    for _ in range(GUARD_S * 10):
        try:
            return socket.create_connection(("127.0.0.1", port), timeout=GUARD_S)
        except OSError:
            assert server.proc.poll() is None, f"the server ended (rc {server.proc.returncode})"
            time.sleep(0.1)
    raise AssertionError("the server never listened")


class Client:
    """An LSP client over a socket: requests, notifications, and what the server sends (its requests get
    an empty answer)."""

    def __init__(self, sock: socket.socket):
        self.sock = sock
        sock.settimeout(GUARD_S)
        self.framer = Framer()
        self.inbox: list = []  # framed, not yet read
        self.seen: list[dict] = []
        self.next_id = 0

    def send(self, msg: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **msg}).encode()
        self.sock.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def request(self, method: str, params) -> int:
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        return self.next_id

    def notify(self, method: str, params) -> None:
        self.send({"method": method, "params": params})

    def receive(self) -> dict | None:
        """The next message, or None when the server closed the connection."""
        while True:
            self.inbox += self.framer.messages()
            if self.inbox:
                item = self.inbox.pop(0)
                if isinstance(item, Bad):
                    raise AssertionError(f"the server sent a malformed message: {item}")
                msg = json.loads(item)
                self.seen.append(msg)
                if "method" in msg and "id" in msg:  # a request from the server
                    self.send({"id": msg["id"], "result": None})
                return msg
            try:
                data = self.sock.recv(1 << 16)
            except ConnectionResetError:
                data = b""
            if not data:
                return None
            self.framer.feed(data)

    def wait(self, test) -> dict:
        while True:
            msg = self.receive()
            assert msg is not None, f"the server closed the connection; it sent: {self.seen[-5:]}"
            if test(msg):
                return msg

    def answer(self, msg_id: int) -> dict:
        return self.wait(lambda m: m.get("id") == msg_id and "method" not in m)

    def closed(self) -> bool:
        """True once the server closes the connection (everything it sent before is kept in `seen`)."""
        while (msg := self.receive()) is not None:
            pass
        return True

    def close(self) -> None:
        self.sock.close()


def initialize(client: Client, options=None, root: Path | None = None) -> dict:
    params = {"processId": os.getpid(), "rootUri": root.as_uri() if root else None, "capabilities": {}}
    if options is not None:
        params["initializationOptions"] = options
    return client.answer(client.request("initialize", params))


def goodbye(client: Client, server: Server) -> None:
    client.answer(client.request("shutdown", None))
    client.notify("exit", None)
    client.closed()
    client.close()
    assert server.proc.wait(GUARD_S) == 0


def fake_nvcc(tmp_path: Path) -> tuple[Path, Path]:
    """A program that leaves a marker when anything runs it."""
    marker = tmp_path / "ran"
    prog = tmp_path / "fake-nvcc"
    prog.write_text(f"#!/bin/sh\ntouch '{marker}'\nexit 1\n")
    prog.chmod(0o755)
    return prog, marker


def ignored_warnings(client: Client) -> list[str]:
    return [m["params"]["message"] for m in client.seen
            if m.get("method") == "window/logMessage" and "ignored nvccPath" in m["params"]["message"]]


# ------------------------------------------------------------------ --tcp
def test_tcp_refuses_clients_without_the_token_and_serves_the_one_with_it(tmp_path):
    port = free_port()
    server = Server(["--tcp", "--port", str(port)])
    try:
        for options in (None, {"settings": {}}, {"token": "not-the-token-at-all-0123456789"}):
            c = Client(connect_when_up(server, port))
            reply = initialize(c, options)
            assert "result" not in reply and "token" in reply["error"]["message"], reply
            assert c.closed()  # and the connection is closed after the error reply
            c.close()
        token_file = Path(server.line("kernelpro-lsp: token file").split(" (")[0])
        address = server.address()
        assert address == f"127.0.0.1:{port}"  # loopback unless --host says otherwise
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        assert stat.S_IMODE(token_file.parent.stat().st_mode) == 0o700
        token = token_file.read_text().strip()
        assert len(token) >= 32
        c = Client(connect_tcp(address))  # nearly the token
        assert "token" in initialize(c, {"token": token[:-1]})["error"]["message"] and c.closed()
        c.close()
        c = Client(connect_tcp(address))  # a first message that is not initialize
        c.request("textDocument/hover", {"textDocument": {"uri": "file:///x.cu"}, "position": {"line": 0, "character": 0}})
        assert "error" in c.wait(lambda m: "id" in m) and c.closed()
        c.close()

        c = Client(connect_tcp(address))
        reply = initialize(c, {"token": token})
        assert reply["result"]["capabilities"]["hoverProvider"], reply
        other = Client(connect_tcp(address))  # one client at a time
        assert "another client" in initialize(other, {"token": token})["error"]["message"]
        other.close()
        goodbye(c, server)
    finally:
        server.stop()
    assert not token_file.exists()  # removed with its folder when the server ended
    assert not token_file.parent.exists()


@pytest.mark.slow  # a real compile of defects.cu
def test_a_tcp_client_with_the_token_is_served_but_cannot_name_programs(tmp_path):
    token = "t0ken-" + os.urandom(16).hex()
    prog, marker = fake_nvcc(tmp_path)
    work = tmp_path / "ws"
    work.mkdir()
    shutil.copy(FIXTURES / "defects.cu", work / "defects.cu")
    port = free_port()
    server = Server(["--tcp", "--port", str(port)], env={"KERNELPRO_LSP_TOKEN": token})
    try:
        c = Client(connect_when_up(server, port))
        programs = {"nvccPath": str(prog), "optimizerCommand": [str(prog)], "extraFlags": ["-ccbin", str(prog)],
                    "llm": {"baseUrl": "http://127.0.0.1:9/v1"}, "optimize": {"workers": "ray://127.0.0.1:9"}}
        reply = initialize(c, {"token": token, "settings": programs}, root=work)
        assert reply["result"]["capabilities"]["hoverProvider"]
        c.notify("initialized", {})
        c.notify("workspace/didChangeConfiguration", {"settings": {"kernelpro": {"nvccPath": str(prog)}}})
        text = (work / "defects.cu").read_text()
        uri = (work / "defects.cu").as_uri()
        c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "cuda", "version": 1, "text": text}})
        diags = c.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri)
        assert diags["params"]["diagnostics"], diags
        assert not marker.exists(), "a program named by the client ran"
        line = [i for i, x in enumerate(text.split("\n")) if "void scale(" in x][0]
        hover = c.answer(c.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                          "position": {"line": line, "character": text.split("\n")[line].index("scale") + 2}}))
        if shutil.which("nvcc"):
            assert "registers" in hover["result"]["contents"]["value"], hover
        else:  # no toolchain here: the answer still came
            assert "result" in hover
        goodbye(c, server)
    finally:
        server.stop()
    assert not marker.exists(), "a program named by the client ran"
    warned = ignored_warnings(c)
    assert len(warned) == 1, warned  # said once, naming every key it ignored
    for key in ("nvccPath", "optimizerCommand", "extraFlags", "llm.baseUrl", "optimize.workers"):
        assert key in warned[0]


def test_a_short_token_from_the_environment_is_refused():
    server = Server(["--tcp", "--port", "0"], env={"KERNELPRO_LSP_TOKEN": "short"})
    assert server.proc.wait(GUARD_S) == 2
    assert "shorter than" in server.line("kernelpro-lsp: KERNELPRO_LSP_TOKEN")


# ------------------------------------------------------------------ --socket
def test_the_unix_socket_is_0600_in_a_private_folder_and_its_client_cannot_name_programs(tmp_path):
    prog, _ = fake_nvcc(tmp_path)
    path = tmp_path / "run" / "lsp.sock"
    server = Server(["--socket", str(path)])
    try:
        assert server.address() == f"unix:{path}"
        st = os.stat(path)
        assert stat.S_ISSOCK(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600
        assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
        s = socket.socket(socket.AF_UNIX)
        s.connect(str(path))
        c = Client(s)
        reply = initialize(c, {"settings": {"nvccPath": str(prog)}})
        assert reply["result"]["capabilities"]["hoverProvider"]
        c.notify("initialized", {})
        c.wait(lambda m: m.get("method") == "kernelpro/status")  # the server is past `initialized`
        goodbye(c, server)
    finally:
        server.stop()
    assert not path.exists()
    assert len(ignored_warnings(c)) == 1  # said while initializing


def test_a_socket_in_a_folder_open_to_others_is_refused(tmp_path):
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(0o755)
    server = Server(["--socket", str(folder / "lsp.sock")])
    assert server.proc.wait(GUARD_S) == 2
    assert "open to other users" in server.line("kernelpro-lsp: --socket")
    assert not (folder / "lsp.sock").exists()


# ------------------------------------------------------------------ the local Ray instance
def _listening() -> dict[int, tuple[str, int]]:
    """{socket inode: (address, port)} of every listening TCP socket of the machine (/proc/net/tcp{,6})."""
    out = {}
    for fam, name in ((socket.AF_INET, "/proc/net/tcp"), (socket.AF_INET6, "/proc/net/tcp6")):
        try:
            rows = Path(name).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            f = row.split()
            if f[3] != "0A":  # TCP_LISTEN
                continue
            ip_hex, port_hex = f[1].split(":")
            raw = bytes.fromhex(ip_hex)
            raw = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))  # host-order words
            out[int(f[9])] = (socket.inet_ntop(fam, raw), int(port_hex, 16))
    return out


def _socket_inodes(pid: int) -> set[int]:
    out = set()
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return out
    for fd in fds:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            out.add(int(target[8:-1]))
    return out


def _descendants(root: int) -> dict[int, str]:
    """{pid: command line} of `root` and every process below it."""
    children: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(d.name))
    out, todo = {}, [root]
    while todo:
        pid = todo.pop()
        try:
            out[pid] = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        todo += children.get(pid, [])
    return out


LOOPBACK = {"127.0.0.1", "::1", "::ffff:127.0.0.1"}

CONNECT = """
import sys, ray
try:
    ray.init(address=sys.argv[1], log_to_driver=False)
except Exception as e:
    print("REFUSED", type(e).__name__, str(e).splitlines()[0] if str(e) else "")
    sys.exit(3)
print("CONNECTED")
ray.shutdown()
"""


@pytest.mark.slow
def test_the_local_ray_instance_listens_on_loopback_only_and_wants_its_token(tmp_path, monkeypatch):
    ray = pytest.importorskip("ray")
    if not Path("/proc/net/tcp").exists():
        pytest.skip("needs /proc/net/tcp (Linux)")
    if ray.is_initialized():
        pytest.skip("a Ray instance already runs in this process")
    from ray_standin import standin_env

    from kernelpro.optimizer.parallel.backend import RayBackend
    from kernelpro.optimizer.parallel.workers import Workers

    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))  # Ray's default token file would be ~/.ray/auth_token
    for k in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH"):
        monkeypatch.delenv(k, raising=False)
    env = standin_env(tmp_path / "standin")
    with RayBackend(Workers(count=1), per_worker=0, env=env) as b:
        assert b.owns and b.workers == 1
        procs = _descendants(os.getpid())  # this driver and the Ray processes it started
        listening = _listening()
        found = {(pid, listening[i]) for pid in procs for i in _socket_inodes(pid) if i in listening}
        names = " ".join(procs[pid] for pid, _ in found)
        assert "gcs_server" in names and "raylet" in names and "GpuWorker" in names, (found, procs)
        wide = [(procs[pid][:80], addr) for pid, addr in found if addr[0] not in LOOPBACK]
        assert not wide, f"Ray processes listening beyond loopback: {wide}"
        # Ray's session folders (its Unix sockets among them) are world-writable: they live in a private folder
        private = Path(b.local.temp_dir)
        assert stat.S_IMODE(private.stat().st_mode) == 0o700 and private.stat().st_uid == os.getuid()
        assert any(str(private) in cmd for cmd in procs.values() if "raylet" in cmd), procs

        gcs = ray.get_runtime_context().gcs_address
        assert gcs.rsplit(":", 1)[0] == "127.0.0.1"
        token = os.environ.get("RAY_AUTH_TOKEN", "")  # fresh, for this instance only
        assert len(token) >= 32 and os.environ.get("RAY_AUTH_MODE") == "token"
        # clients on this machine: no token (no ~/.ray/auth_token either), a wrong one, the right one;
        # RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 keeps Ray from turning 127.0.0.1 into the machine's address
        base = {k: v for k, v in os.environ.items() if not k.startswith("RAY_AUTH")}
        base.update(HOME=str(tmp_path / "stranger"), RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0")
        clients = {name: subprocess.Popen([sys.executable, "-c", CONNECT, gcs], env={**base, **extra}, text=True,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                   for name, extra in (("none", {}), ("wrong", {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": "0" * 64}),
                                       ("right", {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": token}))}
        out = {name: (p.communicate(timeout=GUARD_S), p.returncode) for name, p in clients.items()}
        for name in ("none", "wrong"):
            (stdout, stderr), rc = out[name]
            assert rc == 3 and "REFUSED" in stdout, (name, stdout, stderr[-2000:])
            assert "Authentication token is missing or incorrect" in stdout + stderr, (name, stdout, stderr[-2000:])
        (stdout, stderr), rc = out["right"]
        assert rc == 0 and "CONNECTED" in stdout, (stdout, stderr[-2000:])  # the refusals were the token's
    assert not (home / ".ray").exists()  # the token was never written to Ray's shared default file
    assert not private.exists()  # removed with the instance
    assert "RAY_AUTH_TOKEN" not in os.environ  # the environment is as it was
    assert not ray.is_initialized()
