"""`python -m kernelpro.lsp_server [--tcp [--host H] [--port N] [--token-file F] | --socket PATH] [--log-file F] [--log-level L]`.

stdio by default. `--tcp` admits only the client that sends the token (listen.py); `--socket` serves a
Unix socket of mode 0600. Either way the client's settings may not name programs (settings.PROGRAM_KEYS).
"""
from __future__ import annotations

import argparse
import logging
import sys


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="kernelpro-lsp", description="KernelPro language server (stdio by default)")
    p.add_argument("--tcp", action="store_true",
                   help="serve over TCP instead of stdio; the client must send the token as initializationOptions.token")
    p.add_argument("--host", default=None, help="TCP host (default 127.0.0.1; another address is warned about)")
    p.add_argument("--port", type=int, default=2087, help="TCP port (default 2087; 0: a free port, printed)")
    p.add_argument("--token-file", metavar="FILE",
                   help="with --tcp: write the token to FILE (mode 0600) instead of a new private temp folder "
                        "(the token is generated unless KERNELPRO_LSP_TOKEN gives it)")
    p.add_argument("--socket", metavar="PATH",
                   help="serve on a Unix socket at PATH, mode 0600, in a folder only you can enter (made 0700 if missing)")
    p.add_argument("--log-file", help="write the server log to this file")
    p.add_argument("--log-level", default="WARNING", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    args = p.parse_args(argv)
    if args.tcp and args.socket:
        p.error("--tcp and --socket: choose one")
    if not args.tcp and (args.host is not None or args.token_file is not None):
        p.error("--host and --token-file go with --tcp")
    logging.basicConfig(filename=args.log_file, level=args.log_level,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    from .server import create_server

    listener = None
    if args.tcp or args.socket:
        from .listen import ListenError, serve, socket_listener, tcp_listener

        try:
            listener = (tcp_listener(args.host, args.port, args.token_file) if args.tcp
                        else socket_listener(args.socket))
        except ListenError as e:
            print(f"kernelpro-lsp: {e}", file=sys.stderr)
            return 2
    server = create_server()
    try:
        if listener is not None:
            try:
                serve(server, listener)
            except ListenError as e:
                print(f"kernelpro-lsp: {e}", file=sys.stderr)
                return 2
        else:
            server.start_io()
    finally:
        server.close()
        _leave_promptly(server)
    return 0


def _leave_promptly(server) -> None:
    """`exit` does not wait for a rules pass in flight: the cancelled profiles get a moment to stop (a
    compile removes its temp folder, the analysis stops between chunks of kernels); one still in its
    rules after that is not joined (Python would wait for the pool's thread at exit): the process ends."""
    sched = server.scheduler
    if sched is None or sched.drain(2.0):
        return
    import os

    logging.getLogger(__name__).warning("a profile's analysis was still running at exit: not waited for")
    logging.shutdown()
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
