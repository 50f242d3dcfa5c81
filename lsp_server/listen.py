"""Serving a client over a socket: `--tcp` with a token, or `--socket PATH` (a Unix socket only its owner opens).

Over stdio the client is the editor that started the server. A TCP port, even on 127.0.0.1, is open to
every process of the machine (every user's), so over `--tcp` the server takes only the client whose
`initialize` request carries the token (`initializationOptions.token`): it is generated at start and
written to a new file of mode 0600 in a private folder (or read from KERNELPRO_LSP_TOKEN). A first
message that is not such a request gets an error reply and the connection is closed; the server goes on
listening. `--socket PATH` creates the socket with mode 0600 in a folder only its owner can enter, so
only that user can connect; no token is asked for.

Either way the client is a process no editor vouched for, so the server is marked `remote_client`: the
settings that name programs or endpoints (settings.PROGRAM_KEYS) are ignored when it sends them.

One client at a time: the server serves the first client admitted and ends when it disconnects, as over
stdio; a connection made meanwhile is refused. The stream is read by framing.run_reader, as over stdio.
"""
from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import logging
import os
import secrets
import socket
import stat
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

from .framing import Bad, Framer, run_reader

log = logging.getLogger(__name__)

TOKEN_ENV = "KERNELPRO_LSP_TOKEN"
MIN_TOKEN_CHARS = 16
FIRST_MESSAGE_BYTES = 1 << 20  # an unadmitted client may not send more before its initialize request
FIRST_MESSAGE_S = 60.0  # nor take longer to send it
REFUSED = -32001  # JSON-RPC server error: the client was not admitted


class ListenError(Exception):
    """The server cannot listen as asked (one line for the command line)."""


@dataclass
class Listener:
    """Where and how to listen: `tcp` (host, port) with `token`, or `unix` (a socket path) without."""

    tcp: tuple[str, int] | None = None
    unix: Path | None = None
    token: str | None = None
    cleanup: list[Path] = field(default_factory=list)  # files and folders made here, removed at exit
    say: object = None  # where the lines for the user go (stderr)

    def tell(self, line: str) -> None:
        print(f"kernelpro-lsp: {line}", file=self.say or sys.stderr, flush=True)


# ------------------------------------------------------------------ preparing
def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def token_from_env(env=os.environ) -> str | None:
    """KERNELPRO_LSP_TOKEN when set (at least MIN_TOKEN_CHARS characters), else None."""
    value = env.get(TOKEN_ENV)
    if value is None or value == "":
        return None
    if len(value) < MIN_TOKEN_CHARS:
        raise ListenError(f"{TOKEN_ENV} is shorter than {MIN_TOKEN_CHARS} characters: use a random token "
                          f"(python -c 'import secrets; print(secrets.token_urlsafe(32))'), or unset it")
    return value


def write_token(token: str, path: str | None = None) -> tuple[Path, list[Path]]:
    """The token in a new file of mode 0600: `path`, or `token` in a new private (0700) temp folder.
    Returns the file and what to remove at exit."""
    if path is None:
        folder = Path(tempfile.mkdtemp(prefix="kernelpro-lsp-"))  # mode 0700
        target = folder / "token"
        made = [target, folder]
    else:
        target = Path(path).absolute()
        made = [target]
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(token + "\n")
        os.replace(tmp, target)
    except OSError as e:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise ListenError(f"cannot write the token file {target}: {e.strerror or e}") from None
    return target, made


def prepare_socket(path: str) -> tuple[Path, list[Path]]:
    """The socket's path, its folder private: created with mode 0700 when missing; an existing folder must
    be the user's and closed to others. A socket left by an earlier server is removed; another file is not."""
    p = Path(path).absolute()
    made: list[Path] = []
    folder = p.parent
    if not folder.exists():
        try:
            folder.mkdir(mode=0o700, parents=True)
        except OSError as e:
            raise ListenError(f"--socket: cannot create {folder}: {e.strerror or e}") from None
        os.chmod(folder, 0o700)
        made.append(folder)
    st = os.stat(folder)
    if st.st_uid != os.getuid() or st.st_mode & 0o077:
        raise ListenError(f"--socket: {folder} is open to other users (mode {stat.S_IMODE(st.st_mode):o}, owner "
                          f"{st.st_uid}): put the socket in a folder only you can enter (mode 0700), e.g. "
                          f"$XDG_RUNTIME_DIR/kernelpro/lsp.sock")
    if p.exists() or p.is_symlink():
        if not stat.S_ISSOCK(os.lstat(p).st_mode):
            raise ListenError(f"--socket: {p} exists and is not a socket")
        with socket.socket(socket.AF_UNIX) as probe:
            try:
                probe.connect(str(p))
            except OSError:  # nobody listens: left by an earlier server
                pass
            else:
                raise ListenError(f"--socket: a server already listens on {p}")
        p.unlink()
    return p, [p] + made


def tcp_listener(host: str | None, port: int, token_file: str | None, env=os.environ, say=None) -> Listener:
    lst = Listener(say=say)
    if host is None:
        host = "127.0.0.1"
    elif not is_loopback(host):
        lst.tell(f"warning: --host {host} listens beyond this machine; the token is the only guard and the "
                 f"connection is not encrypted (use an SSH tunnel to 127.0.0.1 instead where you can)")
    token = token_from_env(env)
    if token is None:
        token = secrets.token_urlsafe(32)
        path, lst.cleanup = write_token(token, token_file)
        lst.tell(f"token file {path} (the client sends its content as initializationOptions.token)")
    else:
        if token_file is not None:
            write_token(token, token_file)
        lst.tell(f"token from {TOKEN_ENV} (the client sends it as initializationOptions.token)")
    lst.tcp, lst.token = (host, port), token
    return lst


def socket_listener(path: str, say=None) -> Listener:
    p, made = prepare_socket(path)
    return Listener(unix=p, cleanup=made, say=say)


# ------------------------------------------------------------------ admitting a client
def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def admit(body: bytes, token: str | None) -> tuple[str | None, object, bytes]:
    """(why the client is refused or None, the request id, the body to hand on, the token taken out)."""
    try:
        msg = json.loads(body)
    except ValueError:
        return "its first message is not JSON", None, body
    if not isinstance(msg, dict):
        return "its first message is not a JSON-RPC message", None, body
    msg_id = msg.get("id")
    if not isinstance(msg_id, (int, str)) or isinstance(msg_id, bool):
        msg_id = None
    if msg.get("method") != "initialize" or msg_id is None:
        return "its first message is not an initialize request", msg_id, body
    params = msg.get("params")
    opts = params.get("initializationOptions") if isinstance(params, dict) else None
    given = opts.pop("token", None) if isinstance(opts, dict) else None
    if token is not None:
        if not isinstance(given, str) or not hmac.compare_digest(given.encode("utf-8", "replace"),
                                                                 token.encode("utf-8")):
            return "initializationOptions.token is missing or wrong", msg_id, body
    return None, msg_id, json.dumps(msg).encode()


def refusal(msg_id, why: str) -> bytes:
    return frame(json.dumps({"jsonrpc": "2.0", "id": msg_id, "error": {
        "code": REFUSED, "message": f"KernelPro refused this client: {why}"}}).encode())


async def first_message(reader: asyncio.StreamReader) -> tuple[bytes | None, list, Framer]:
    """The first well-framed message, what came after it, and the framer holding the rest."""
    framer = Framer()
    while True:
        data = await reader.read(1 << 16)
        if not data:
            return None, [], framer
        framer.feed(data)
        items = framer.messages()
        for i, item in enumerate(items):
            if not isinstance(item, Bad):
                return item, items[i + 1:], framer
        if len(framer.buf) > FIRST_MESSAGE_BYTES:
            return None, [], framer


# ------------------------------------------------------------------ serving
def serve(server, lst: Listener) -> None:
    """Listen, admit one client, serve it until it leaves (or sends exit), then return."""
    server.remote_client = True  # a socket client may be any process: no programs from its settings
    server._stop_event = stop = threading.Event()
    state = {"busy": False}

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            body, rest, framer = await asyncio.wait_for(first_message(reader), FIRST_MESSAGE_S)
        except (asyncio.TimeoutError, OSError):
            body, rest, framer = None, [], Framer()
        if body is None:
            why, msg_id = "no initialize request came", None
        else:
            why, msg_id, body = admit(body, lst.token)
        if why is None and state["busy"]:
            why = "another client is connected"
        if why is not None:
            log.warning("refused a client: %s", why)
            try:
                if msg_id is not None:
                    writer.write(refusal(msg_id, why))
                    await writer.drain()
                writer.close()
                await writer.wait_closed()
            except OSError:
                pass
            return
        state["busy"] = True
        log.info("a client was admitted")
        server.protocol.set_writer(writer)
        pending = [frame(body) + b"".join(frame(x) for x in rest if not isinstance(x, Bad)) + bytes(framer.buf)]

        async def read() -> bytes:
            if pending:
                return pending.pop()
            try:
                return await reader.read(1 << 16)
            except OSError:
                return b""

        try:
            await run_reader(stop, read, server.protocol, server.on_bad_frame, log)
        finally:
            server.shutdown()  # one client: the server ends with it, as over stdio

    async def main() -> None:
        if lst.unix is not None:
            old = os.umask(0o177)  # the socket is born 0600: no moment when others may connect
            try:
                srv = await asyncio.start_unix_server(connection, path=str(lst.unix))
            finally:
                os.umask(old)
            os.chmod(lst.unix, 0o600)
            where = f"unix:{lst.unix}"
        else:
            host, port = lst.tcp
            try:
                srv = await asyncio.start_server(connection, host, port)
            except OSError as e:
                raise ListenError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
            addr = srv.sockets[0].getsockname()
            where = f"[{addr[0]}]:{addr[1]}" if ":" in addr[0] else f"{addr[0]}:{addr[1]}"
        server._server = srv
        lst.tell(f"listening on {where}")
        async with srv:
            await srv.serve_forever()

    try:
        asyncio.run(main())
    except asyncio.CancelledError:
        pass
    except BrokenPipeError:
        log.error("the client closed the connection")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()
        for p in lst.cleanup:
            try:
                p.rmdir() if p.is_dir() and not p.is_symlink() else p.unlink()
            except OSError:
                pass
