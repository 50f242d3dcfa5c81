"""`kernelpro optimize`, `kernelpro candidates`, `kernelpro memory` (registered into the profilers' CLI).

Only argparse is imported at registration time; the work imports happen in the handlers.
"""
from __future__ import annotations

import json
import os
import signal
import sys
import threading


def register(sub) -> None:
    o = sub.add_parser("optimize", help="search for faster (or leaner) correct variants; keep them as git branches")
    o.add_argument("files", nargs="+", metavar="FILE",
                   help="a .cu file, several, or a directory: every launch spec under it is one kernel to optimize")
    o.add_argument("--kernel", help="the kernel to optimize (default: the one each file's launch spec names)")
    o.add_argument("--budget", type=int, default=20, help="number of candidate evaluations (default 20)")
    o.add_argument("--time-limit", type=float, metavar="S", help="wall-time budget in seconds")
    o.add_argument("--token-limit", type=int, metavar="N", help="LLM token budget")
    o.add_argument("--objective", choices=("time", "energy", "edp"), default="time")
    o.add_argument("--search", choices=("mcts", "greedy", "random"), default="mcts")
    o.add_argument("--seed", type=int, default=0)
    o.add_argument("--arch", default="sm_90")
    o.add_argument("-I", dest="include", action="append", metavar="DIR", help="include path (as for profile)")
    o.add_argument("-D", dest="define", action="append", metavar="NAME=VAL", help="preprocessor define (as for profile)")
    o.add_argument("--llm-base-url", default=os.environ.get("KERNELPRO_LLM_BASE_URL"), metavar="URL",
                   help="an OpenAI-compatible endpoint (default $KERNELPRO_LLM_BASE_URL); https, or plain http to "
                        "this machine only. A key is sent only where it is bound: KERNELPRO_LLM_API_KEY to "
                        "$KERNELPRO_LLM_BASE_URL, OPENAI_API_KEY to https://api.openai.com/v1")
    o.add_argument("--llm-model", default=os.environ.get("KERNELPRO_LLM_MODEL"), metavar="NAME",
                   help="the model to ask (default $KERNELPRO_LLM_MODEL); with --llm-base-url, the LLM proposes")
    o.add_argument("--feedback", choices=("advice", "raw", "none"), default="advice")
    o.add_argument("--max-branches", type=int, default=5,
                   help="branches a run keeps (default 5): a new best is always saved, the oldest superseded one goes")
    o.add_argument("--no-energy", action="store_true",
                   help="skip the NVML energy measurement of saved branches (faster; notes then lack energy)")
    o.add_argument("--infer-spec", action="store_true",
                   help="a kernel without a launch spec: write the spec `kernelpro spec init` infers (the kernel as it "
                        "is now as the reference) and optimize with it; without this flag such a kernel is refused "
                        "with what would be inferred; with --propose-only the inferred spec is used in memory "
                        "and nothing is written")
    o.add_argument("--json-events", action="store_true", help="print one JSON event per line (for editors)")
    o.add_argument("--propose-only", action="store_true",
                   help="list the candidates the first expansion would try, each compiled, with a diff; "
                        "needs no GPU and writes nothing")
    o.add_argument("--json", action="store_true", help="with --propose-only: the list as JSON")
    o.add_argument("--workers", default=os.environ.get("KERNELPRO_WORKERS") or None, metavar="auto|N|ray://HOST:PORT",
                   help="evaluate on several GPUs with Ray (pip install 'kernelpro[ray]'): one worker per GPU of this "
                        "machine (auto or N) or of a Ray cluster (its address); default: this machine's one GPU")
    o.add_argument("--gpu-model", metavar="NAME|any",
                   help="with --workers: the GPU model to time on (Ray's accelerator type; default: the model with "
                        "the most GPUs); any: all models, each branch re-measured on one GPU")
    o.set_defaults(func=cmd_optimize)

    c = sub.add_parser("candidates", help="list, show, apply or delete the kernelpro/ candidate branches")
    c.add_argument("action", nargs="?", choices=("list", "show", "apply", "delete"), default="list")
    c.add_argument("branch", nargs="?")
    c.add_argument("--kernel")
    c.add_argument("--repo", default=".")
    c.add_argument("--force", action="store_true", help="apply over uncommitted changes")
    c.add_argument("--json", action="store_true", help="JSON on stdout (errors too, with a \"kind\"); for editors")
    c.set_defaults(func=cmd_candidates)

    m = sub.add_parser("memory", help="show the search memory: attempts and the lessons drawn from them")
    m.add_argument("--kernel")
    m.add_argument("--repo", default=".")
    m.add_argument("--limit", type=int, default=20)
    m.add_argument("--json", action="store_true")
    m.set_defaults(func=cmd_memory)


def _options(args):
    """The compile options of -I, -D and --arch, as `kernelpro profile` reads them."""
    from kernelpro.profilers.compile import CompileOptions

    includes = tuple(os.path.abspath(os.path.expanduser(d)) for d in (getattr(args, "include", None) or ()))
    return CompileOptions(arch=args.arch, include_paths=includes, defines=tuple(getattr(args, "define", None) or ()))


def cmd_optimize(args) -> int:
    from .model import Budget
    from .run import OptimizeError, RunConfig, optimize

    if args.propose_only:
        return cmd_propose_only(args)
    if args.json:
        print("kernelpro: --json goes with --propose-only (use --json-events for a run)", file=sys.stderr)
        return 2
    problem = None
    try:
        budget = Budget(evaluations=args.budget, seconds=args.time_limit, tokens=args.token_limit)
    except ValueError as e:
        problem = str(e).replace(" or None", "")
        for field, flag in (("evaluations", "--budget"), ("seconds", "--time-limit"), ("tokens", "--token-limit")):
            problem = problem.replace(f"Budget.{field}", flag)
    if args.max_branches < 0:
        problem = f"--max-branches must be >= 0, got {args.max_branches}"
    workers = None
    if problem is None and args.workers:
        from .parallel.workers import WorkersError, parse_workers

        try:
            workers = parse_workers(args.workers)
        except WorkersError as e:
            problem = str(e)
    elif problem is None and args.gpu_model:
        problem = "--gpu-model goes with --workers"
    if problem is None and args.llm_base_url and args.llm_model:
        from .llm.client import endpoint_problem

        problem = endpoint_problem(args.llm_base_url)  # refused before any request
    jobs = None
    if problem is None:
        from .many import find_jobs

        try:
            jobs = find_jobs(args.files, args.kernel, infer=args.infer_spec)
        except OptimizeError as e:
            problem = str(e)
    if problem:
        if args.json_events:
            print(json.dumps({"type": "error", "message": problem}), flush=True)
        print(f"kernelpro: {problem}", file=sys.stderr)
        return 2
    cfgs = [RunConfig(file=j.file, kernel=j.kernel, budget=budget,
                      objective=args.objective, strategy=args.search, seed=args.seed,
                      options=_options(args), llm_base_url=args.llm_base_url,
                      llm_model=args.llm_model, feedback=args.feedback, max_branches=args.max_branches,
                      energy=False if args.no_energy else None, infer_spec=args.infer_spec) for j in jobs]
    lock = threading.Lock()  # several searches and the Ray backend report from their own threads
    if args.json_events:
        def emit(ev):
            with lock:
                print(json.dumps(ev, default=str), flush=True)
    else:
        from .progress import Progress

        progress = Progress(args.budget * len(cfgs))

        def emit(ev):
            with lock:
                progress(ev)
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        try:
            if workers is None and len(cfgs) == 1:
                outs = [optimize(cfgs[0], on_event=emit)]
            else:
                outs = _optimize_many(cfgs, emit, workers, args.gpu_model)
        finally:
            if not args.json_events and progress.live is not None:
                progress.live.stop()  # the terminal gets its cursor back before any message
    except OptimizeError as e:
        if args.json_events:
            emit({"type": "error", "message": str(e)})
        print(f"kernelpro: {e}", file=sys.stderr)
        if getattr(e, "details", None):
            print(e.details, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        if args.json_events:
            emit({"type": "cancelled"})
        print("kernelpro: optimization interrupted; branches saved so far are kept", file=sys.stderr)
        return 130
    failed = [o for o in outs if isinstance(o, Exception)]
    for cfg, o in zip(cfgs, outs):
        if isinstance(o, Exception):
            if args.json_events:
                emit({"type": "error", "message": str(o), "kernel": cfg.kernel, "file": str(cfg.file)})
            print(f"kernelpro: {o}" if len(cfgs) == 1 else f"kernelpro: {cfg.file} ({cfg.kernel}): {o}",
                  file=sys.stderr)
        elif not args.json_events:
            if len(cfgs) > 1:
                progress.console.print(f"[bold]{cfg.kernel}[/bold] ({cfg.file}):")
            progress.finish(o)
    return 2 if failed else 0


def _optimize_many(cfgs, emit, workers, gpu_model) -> list:
    """Several kernels, or the Ray workers: every preflight first, then the runs (at once with workers)."""
    from .many import check_all, run_all
    from .run import OptimizeError

    checked, problems = check_all(cfgs)
    if problems:
        raise OptimizeError(problems[0] if len(problems) == 1 else
                            f"{len(problems)} kernels cannot be optimized: " + "; ".join(problems))
    if workers is None:
        return run_all(cfgs, emit, checked=checked)
    from .parallel.backend import RayBackend
    from .parallel.workers import WorkersError

    try:
        backend = RayBackend(workers, gpu_model=gpu_model, emit=emit)
    except WorkersError as e:
        raise OptimizeError(str(e)) from None
    with backend:
        return run_all(cfgs, emit, backend=backend, checked=checked)


def cmd_propose_only(args) -> int:
    from .propose import print_report, propose_only
    from .run import OptimizeError

    if args.workers:
        print("kernelpro: --propose-only needs no workers (it compiles; nothing runs on a GPU)", file=sys.stderr)
        return 2
    try:
        from .many import find_jobs

        jobs = find_jobs(args.files, args.kernel, infer=args.infer_spec)
        if len(jobs) != 1:
            raise OptimizeError(f"--propose-only takes one kernel; {len(jobs)} were named "
                                f"({', '.join(j.kernel for j in jobs)})")
        rep = propose_only(jobs[0].file, jobs[0].kernel, _options(args), infer=args.infer_spec)
    except OptimizeError as e:
        print(f"kernelpro: {e}", file=sys.stderr)
        return 2
    print_report(rep, args.json)
    problem = rep.problem()
    if problem:  # after the report (it shows the errors): the exit status and one line say it
        print(f"kernelpro: {problem}", file=sys.stderr)
        return 1
    return 0


def cmd_candidates(args) -> int:
    from . import candidates as cs

    try:
        if args.action == "list":
            code, text = cs.cli_list(args.repo, kernel=args.kernel, as_json=args.json)
        elif not args.branch:
            print(f"kernelpro: candidates {args.action} needs a branch name (see `kernelpro candidates list`)", file=sys.stderr)
            return 2
        elif args.action == "show":
            code, text = cs.cli_show(args.repo, args.branch, as_json=args.json)
        elif args.action == "apply":
            code, text = cs.cli_apply(args.repo, args.branch, args.force, as_json=args.json)
        else:
            code, text = cs.cli_delete(args.repo, args.branch, as_json=args.json)
    except cs.CandidateError as e:
        print(f"kernelpro: {e}", file=sys.stderr)
        return 2
    if code != 0:  # one line, exit 2, like every command's bad input (with --json, the error as JSON too)
        message = json.loads(text)["error"] if args.json else text.strip().removeprefix("error:")
        print("kernelpro: " + " ".join(message.split()), file=sys.stderr)
        if args.json:
            sys.stdout.write(text + "\n")
        return 2
    sys.stdout.write(text.rstrip("\n") + "\n")
    return code


def cmd_memory(args) -> int:
    from pathlib import Path

    from .memory import Memory, MemoryStoreError

    def fail(message: str) -> int:  # one line on stderr, exit 2; with --json the error as JSON too
        print(f"kernelpro: {message}", file=sys.stderr)
        if args.json:
            print(json.dumps({"ok": False, "error": message, "kind": "error"}))
        return 2

    if args.limit < 1:
        return fail(f"--limit must be at least 1, got {args.limit}")
    root = Path(args.repo).resolve()
    db = root / ".kernelpro" / "memory.sqlite"
    if not db.exists():
        note = f"no search memory under {root} yet (it is written by `kernelpro optimize`)"
        if args.json:
            print(json.dumps({"attempts": [], "lessons": [], "note": note}, indent=2))
        else:
            print(note)
        return 0
    try:
        mem = Memory(root)
    except MemoryStoreError as e:
        return fail(str(e))
    try:
        attempts = mem.attempts(kernel=args.kernel)[-args.limit:]
        lessons = mem.lessons_for(args.kernel or "", [], limit=args.limit)
    except MemoryStoreError as e:
        return fail(str(e))
    finally:
        mem.close()
    if args.json:
        print(json.dumps({"attempts": [a.__dict__ for a in attempts], "lessons": [l.__dict__ for l in lessons]},
                         indent=2, default=str))
        return 0
    # Every stored value is shown as the text it is: rich Text (no markup, so "[/]" or "[bold]" in
    # a description prints as written) with control characters escaped (no terminal sequences).
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    def shown(value, limit: int | None = None) -> Text:
        s = "" if value is None else str(value)
        s = "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in s)
        return Text(s[:limit] if limit else s)

    c = Console(highlight=False)
    t = Table(title=f"last {len(attempts)} attempts", show_edge=False)
    for col in ("kernel", "what it tried", "answers", "outcome", "speedup"):
        t.add_column(col)
    for a in attempts:
        t.add_row(shown(a.kernel), shown(a.description, 70), shown(",".join(a.answers)), shown(a.outcome),
                  shown(f"{a.speedup:.2f}x") if a.speedup else shown(a.failure or "", 40))
    c.print(t)
    c.print(Text("\nlessons", style="bold"))
    for l in lessons:
        c.print(Text.assemble("- ", shown(f"[{l.outcome}]"), " ", shown(l.text)))
    return 0
