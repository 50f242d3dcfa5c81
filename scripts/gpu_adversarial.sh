#!/usr/bin/env bash
# Issue 10 on the GPU machine, from the repository root, after the wheels and this checkout are installed
# into /tmp/site (see ../shared/device/README.md): the evaluator's GPU tests, the cheat suite
# (tests/adversarial) through the `kernelpro bench` path and through `optimize` with the scripted model
# server, `kernelpro bench` itself on the issue's cheat, and the throughput benchmark.
# Everything lands in $OUT (5 files); summary.txt has the verdicts. At most about 260 s after the install.
set -u
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
L=${OUT:-/tmp/gpu_adversarial}; mkdir -p "$L"
export KERNELPRO_CACHE_DIR=/tmp/kp-adversarial-cache  # the device ceilings are measured once
export KERNELPRO_ADVERSARIAL_LOG=$L/adversarial.jsonl
rm -f "$KERNELPRO_ADVERSARIAL_LOG"
T0=$(date +%s)
step() { echo "== $1 ($(( $(date +%s) - T0 )) s)" | tee -a "$L/summary.txt"; }
PYTEST="python3 -m pytest -q -m gpu -p no:cacheprovider -o addopts="

step "device"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader | tee -a "$L/summary.txt"
python3 - <<'PY' 2>&1 | tee -a "$L/summary.txt"
from kernelpro.profilers.runtime.measure import gpu_problem
from kernelpro.profilers.runtime.sanitizer import find_sanitizer
from kernelpro.profilers.runtime.devarrays import device_xp
print("gpu_problem:", gpu_problem(), "| compute-sanitizer:", find_sanitizer(), "| device arrays:",
      getattr(device_xp(), "__name__", None))
PY

step "cheat suite through the bench path, then through optimize, then the evaluator's GPU tests"
# one pytest process: one worker for the suite, the honest twins measured once; -rA lists every test
timeout 190 $PYTEST -rA tests/adversarial/test_cheats_gpu.py tests/test_gpu_evaluation.py > "$L/suite.txt" 2>&1
echo "rc=$?" | tee -a "$L/summary.txt"; grep -E "^(PASSED|FAILED|ERROR|SKIPPED)" "$L/suite.txt" | cut -c1-160 > "$L/tests.txt"
grep -cE "^PASSED" "$L/tests.txt" | sed 's/^/passed: /' | tee -a "$L/summary.txt"
grep -E "^(FAILED|ERROR)" "$L/tests.txt" | tee -a "$L/summary.txt"; tail -1 "$L/suite.txt" | tee -a "$L/summary.txt"

step "throughput (benchmarks/eval_throughput.py)"
timeout 50 python3 benchmarks/eval_throughput.py --candidates 2 > "$L/throughput.txt" 2>&1
echo "rc=$?" | tee -a "$L/summary.txt"; grep -E "median|softmax" "$L/throughput.txt" | tee -a "$L/summary.txt"

step "verdicts per case"
python3 - "$KERNELPRO_ADVERSARIAL_LOG" <<'PY' 2>&1 | tee -a "$L/summary.txt"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])] if __import__("os").path.exists(sys.argv[1]) else []
for r in rows:
    if r["path"] in ("bench", "bench-cli"):
        verdict = f"accepted, {r['speedup']:.3f}x" if r["ok"] else f"REJECTED: {(r['failure'] or '')[:110]}"
        print(f"{r['path']:9} {r['case']:20} expect {r.get('expect', '-'):10} -> {verdict}")
    else:
        ev = r.get("evaluated") or {}
        what = "no candidate (answer refused: " + "; ".join(r.get("llm_failures", []))[:80] + ")" if not ev else (
            f"evaluated ok={ev.get('ok')} {('reward %.3f' % ev['reward']) if ev.get('reward') is not None else (ev.get('failure') or '')[:80]}")
        print(f"optimize  {r['case']:20} branches {len(r['branches'])} -> {what}")
PY
step "done"
ls -la "$L"
