#!/usr/bin/env bash
# GPU: one call's worth of checks, each under its own time limit so the call ends inside the device's 600 s.
# Usage on the device machine, from the repository root: bash scripts/gpu_session.sh
#   PYTEST="tests/test_blocks.py -k gemm_sm90"   the GPU tests to run first (pytest -m gpu)
#   SUITES="tf32:benchmarks/suite/gemm_fp32/naive_tf32.cu:150 scan:@scan:120"   name:FILES (or @FAMILIES):RUN_T
set -u
L=${OUT:-/tmp/session-out}; mkdir -p $L
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpuwheels/*.whl $(ls .gpuwheels-hunter/*.whl 2>/dev/null) \
  >$L/pip.txt 2>&1 || { cat $L/pip.txt; exit 1; }
python3 -m pip install -q --no-deps --no-build-isolation --target /tmp/site . >>$L/pip.txt 2>&1 || { cat $L/pip.txt; exit 1; }
export PYTHONPATH=/tmp/site
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw --format=csv; git log --oneline -1; date -u; } > $L/gpu.txt 2>&1
if [ -n "${PYTEST:-}" ]; then
  ( time timeout ${PYTEST_T:-200} python3 -m pytest -q -m gpu -n 2 -p no:cacheprovider -o addopts="" $PYTEST ) > $L/pytest.txt 2>&1
  echo "rc=$?" >> $L/pytest.txt; tail -4 $L/pytest.txt
fi
for s in ${SUITES:-}; do
  name=${s%%:*}; rest=${s#*:}; what=${rest%%:*}; t=${rest##*:}
  if [ "${what#@}" != "$what" ]; then sel="FAMILIES=${what#@}"; else sel="FILES=$what"; fi
  env OUT=$L/$name SANITIZE=0 BUDGET=${BUDGET:-8} REPEATS=2 RUN_T=$t $sel bash scripts/gpu_suite.sh > $L/$name.txt 2>&1
  echo "== $name"; tail -6 $L/$name.txt
done
