"""How the language server's message framer scales on the audit's hostile input.

The input is one didOpen of a `.cu` made of `// Content-Length: 12` comment lines (0.25, 0.5, 1
and 2 MB), fed to `Framer` in the 64 KB chunks the server's stdin pump reads. For each size it
prints the framer's time (median of --reps) beside a plain `json.loads` of the same body, and
their ratio: a linear framer keeps the ratio about flat as the size doubles (it decodes the body
once itself), a quadratic one sees it double. A printed measurement, not a test.

Usage: python benchmarks/framer_scaling.py [--reps 5] [--sizes 0.25,0.5,1,2]
                                          [--framing PATH]  (another framing.py, e.g. an old one:
                                           git show <rev>:lsp_server/framing.py > /tmp/old.py)
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import time

CHUNK = 1 << 16
LINE = "// Content-Length: 12\n"


def message(size: int) -> tuple[bytes, bytes]:
    """(the framed didOpen, its body) for a file of about `size` bytes."""
    text = LINE * (size // len(LINE))
    body = json.dumps({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": "file:///big.cu", "languageId": "cuda-cpp", "version": 1, "text": text}}}).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body, body


def load_framing(path: str | None):
    if path is None:
        from kernelpro.lsp_server import framing
        return framing
    spec = importlib.util.spec_from_file_location("framing_under_test", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look the module up
    spec.loader.exec_module(mod)
    return mod


def time_framer(framing, data: bytes, body: bytes) -> float:
    t0 = time.perf_counter()
    f, out = framing.Framer(), []
    for i in range(0, len(data), CHUNK):
        f.feed(data[i:i + CHUNK])
        out += f.messages()
    took = time.perf_counter() - t0
    assert out == [body], "the framer did not return the message"
    return took


def time_json(body: bytes) -> float:
    t0 = time.perf_counter()
    json.loads(body)
    return time.perf_counter() - t0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--sizes", default="0.25,0.5,1,2", help="MB, comma-separated")
    p.add_argument("--framing", help="time this framing.py instead of kernelpro.lsp_server.framing")
    args = p.parse_args()
    framing = load_framing(args.framing)
    print(f"framer: {framing.__file__}; {CHUNK // 1024} KB chunks; median of {args.reps}")
    print(f"{'size':>8} {'framer':>10} {'json.loads':>11} {'ratio':>7}")
    for mb in (float(s) for s in args.sizes.split(",")):
        data, body = message(int(mb * (1 << 20)))
        fr = statistics.median(time_framer(framing, data, body) for _ in range(args.reps))
        js = statistics.median(time_json(body) for _ in range(args.reps))
        print(f"{mb:>6g}MB {fr * 1e3:>8.2f}ms {js * 1e3:>9.2f}ms {fr / js:>7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
