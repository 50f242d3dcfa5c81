#!/usr/bin/env bash
# GPU: one device call of the benchmark report (benchmarks/run_suite.py), resumable across calls.
# Continues docs/benchmarks/results.json (or $RESULTS) into $OUT/results.json: units already
# complete are kept, the rest run in order while they fit before DEADLINE seconds (counted from
# the start of this script, pip included). Copy $OUT/results.json back over
# docs/benchmarks/results.json before the next call; `python benchmarks/report.py` makes the report.
# Usage on the device machine, from the repository root (.gpuwheels carried), the same command each call:
#   KERNELPRO_COMMIT=<hash> bash scripts/gpu_report.sh
# (KERNELPRO_COMMIT records the commit where the copy on the device has no .git). The defaults are the
# report's: every family, MCTS, greedy and random, seeds 0 1 2, budget 8, 2 re-measurement rounds,
# torch.compile after the runs, then the energy objective on GELU. Any of them can be changed:
#   FAMILIES="gelu softmax" STRATEGIES="greedy random" SEEDS="0 1 2" OBJECTIVE=time BUDGET=8 REPEATS=2 \
#     ENERGY_FAMILIES="gelu" TORCH_COMPILE=1 DEADLINE=525 bash scripts/gpu_report.sh
set -u
export PYTHONUNBUFFERED=1
L=${OUT:-/tmp/report-out}; mkdir -p "$L"
if [ ! -d /tmp/site/kernelpro ]; then
  python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpuwheels/*.whl >"$L/pip.txt" 2>&1 || { cat "$L/pip.txt"; exit 1; }
fi
python3 -m pip install -q --no-deps --no-build-isolation --upgrade --target /tmp/site . >>"$L/pip.txt" 2>&1 || { cat "$L/pip.txt"; exit 1; }
export PYTHONPATH=/tmp/site
SRC=${RESULTS:-docs/benchmarks/results.json}
[ -f "$SRC" ] && cp "$SRC" "$L/results.json"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw --format=csv > "$L/gpu.txt" 2>&1
LEFT=$(( ${DEADLINE:-525} - SECONDS ))
EXTRA=""
[ "${TORCH:-1}" = 1 ] || EXTRA="$EXTRA --no-torch"
[ "${TORCH_COMPILE:-1}" = 1 ] || EXTRA="$EXTRA --no-torch-compile"
[ "${NO_BASELINE:-0}" = 1 ] && EXTRA="$EXTRA --no-baseline"
python3 benchmarks/run_suite.py --out "$L/results.json" --logs "$L/logs" --deadline "$LEFT" \
  --budget "${BUDGET:-8}" --repeats "${REPEATS:-2}" --objective "${OBJECTIVE:-time}" ${FAMILIES:+--families $FAMILIES} \
  ${STRATEGIES:+--strategies $STRATEGIES} ${SEEDS:+--seeds $SEEDS} --energy-families ${ENERGY_FAMILIES-gelu} $EXTRA 2>&1 | tee "$L/report.txt"
rc=${PIPESTATUS[0]}
tar -czf "$L/report-logs.tar.gz" -C "$L" logs pip.txt gpu.txt 2>/dev/null; rm -rf "$L/logs" "$L/pip.txt"
exit $rc
