"""`python -m kernelpro.lsp_server [--tcp --host H --port N] [--log-file F] [--log-level L]`."""
from __future__ import annotations

import argparse
import logging
import sys


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="kernelpro-lsp", description="KernelPro language server (stdio by default)")
    p.add_argument("--tcp", action="store_true", help="serve over TCP instead of stdio")
    p.add_argument("--host", default="127.0.0.1", help="TCP host (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=2087, help="TCP port (default 2087)")
    p.add_argument("--log-file", help="write the server log to this file")
    p.add_argument("--log-level", default="WARNING", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    args = p.parse_args(argv)
    logging.basicConfig(filename=args.log_file, level=args.log_level,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    from .server import create_server

    server = create_server()
    try:
        if args.tcp:
            server.start_tcp(args.host, args.port)
        else:
            server.start_io()
    finally:
        server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
