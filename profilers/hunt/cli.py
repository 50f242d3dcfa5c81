"""`kernelpro hunt QUERY [--json]`: search CUTLASS/CuTe, CUB, libcu++, cooperative groups and
KernelPro's own building blocks for a piece to use.

Exit status: 0 results, 1 no match, 2 bad query or no corpus at all. A source that is
missing (nvidia-cutlass not installed, no CUDA toolkit) is named on stderr; the others are
still searched.
"""
from __future__ import annotations

import json
import sys


def register(sub) -> None:
    p = sub.add_parser("hunt", help="search CUTLASS/CuTe, CUB, libcu++ and KernelPro's building blocks")
    p.add_argument("query", nargs="*", help="what you need, e.g. 'warp reduce sum' or 'tma copy global to shared'")
    p.add_argument("-n", "--limit", type=int, default=5, help="results to show (default 5)")
    p.add_argument("--source", action="append", metavar="NAME",
                   help="only this source (repeatable): kernelpro, cutlass, cutlass-examples, cub, libcu++, "
                        "cooperative_groups")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--rebuild", action="store_true", help="build the index again")
    p.add_argument("--include-dir", action="store_true",
                   help="print the folder to pass with -I for KernelPro's building blocks, and exit")
    p.add_argument("--nvcc", help="nvcc whose toolkit headers to search (default: the one found)")
    p.set_defaults(func=cmd_hunt)


def cmd_hunt(args) -> int:
    from ..cli import UsageError
    from .api import corpus_and_index
    from .corpus import NAMES
    from .index import HuntError
    from .library import INCLUDE_DIR

    if args.include_dir:
        print(INCLUDE_DIR)
        return 0
    query = " ".join(args.query).strip()
    if not query:
        raise UsageError("hunt: empty query: say what you are looking for, e.g. kernelpro hunt warp reduce sum")
    if args.limit < 1:
        raise UsageError(f"hunt: --limit {args.limit}: must be at least 1")
    for s in args.source or ():
        if s not in NAMES:
            raise UsageError(f"hunt: --source {s}: unknown source (known: {', '.join(NAMES)})")
    progress = None if args.json else _progress
    try:
        corpus, index = corpus_and_index(nvcc=args.nvcc, rebuild=args.rebuild, progress=progress)
    except HuntError as e:
        raise UsageError(f"hunt: {e}") from None
    missing = {m.name: m.reason for m in corpus.missing}
    wanted_missing = [s for s in (args.source or ()) if s in missing]
    if args.source and len(wanted_missing) == len(args.source):
        raise UsageError("hunt: " + "; ".join(f"{s} is not available: {missing[s]}" for s in wanted_missing))
    for name, reason in missing.items():
        if not args.source or name in args.source:
            print(f"kernelpro hunt: {name} not searched: {reason}", file=sys.stderr)
    try:
        hits = index.search(query, limit=args.limit, sources=args.source)
    except HuntError as e:
        raise UsageError(f"hunt: {e}") from None
    searched = [s.name for s in corpus.sources if not args.source or s.name in args.source]
    if args.json:
        print(json.dumps({"query": query, "searched": searched, "missing": missing,
                          "results": [h.to_json() for h in hits]}, indent=2))
    elif hits:
        for i, h in enumerate(hits, 1):
            print(f"{i}. {h.text()}\n   {h.url}")
    if not hits:
        print(f"kernelpro hunt: no match for {query!r} in {', '.join(searched)}", file=sys.stderr)
        return 1
    return 0


def _progress(done: int, total: int) -> None:
    if done == 0:
        print(f"kernelpro hunt: indexing {total} files (once per corpus version)...", file=sys.stderr)
