"""Stand-in for `python -m kernelpro.optimizer` in the language-server tests.

Prints the optimizer's JSON events slowly; writes its pid (and the argv it got) to files.
Usage: fake_optimizer.py --pid-file F [--delay S] [--evaluations N] [--ignore-sigint]
       [--fail MESSAGE] [--long-event N] optimize FILE --kernel K --budget N --objective O --json-events ...
"""
import argparse
import json
import os
import signal
import sys
import time

p = argparse.ArgumentParser()
p.add_argument("--pid-file", required=True)
p.add_argument("--delay", type=float, default=0.1)
p.add_argument("--ignore-sigint", action="store_true")
p.add_argument("--fail")
p.add_argument("--long-event", type=int, default=0, help="first emit an event this many characters long")
p.add_argument("command")
p.add_argument("file")
p.add_argument("--kernel", required=True)
p.add_argument("--budget", type=int, required=True)
p.add_argument("--objective", default="time")
p.add_argument("--json-events", action="store_true")
p.add_argument("--llm-base-url")
p.add_argument("--llm-model")
p.add_argument("--arch")
p.add_argument("-I", dest="include", action="append")
p.add_argument("-D", dest="define", action="append")
args = p.parse_args()


def _write(path, text):  # whole or not at all: a test waiting for the file reads it once it exists
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


if args.ignore_sigint:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
else:
    signal.signal(signal.SIGINT, lambda *a: sys.exit(130))
# the argv first, then the pid, each whole, and only after the signal handling is set: once the pid file
# exists, a test may read both and signal the process
_write(args.pid_file + ".argv", json.dumps(sys.argv[1:]))
_write(args.pid_file, str(os.getpid()))


def emit(**ev):
    ev.setdefault("budget", {"evaluations": args.budget})
    print(json.dumps(ev), flush=True)


print("fake optimizer starting", file=sys.stderr, flush=True)
emit(type="start", evaluations=0)
if args.long_event:
    emit(type="llm_failure", evaluations=0, reason="x" * args.long_event)
if args.fail:
    emit(type="error", evaluations=0, message=args.fail)
    sys.exit(1)
best = 1.0
for i in range(1, args.budget + 1):
    time.sleep(args.delay)
    speedup = 1.0 + 0.1 * i
    emit(type="evaluated", evaluations=i, speedup=speedup, ok=True, failure=None, description=f"candidate {i}")
    if speedup > best:
        best = speedup
        emit(type="new_best", evaluations=i, speedup=speedup)
emit(type="done", evaluations=args.budget, best_branch=f"kernelpro/{args.kernel}/run1-{args.budget}",
     speedup=best, failures=0)
