#!/usr/bin/env bash
# GPU: the restructuring suite. Installs the wheels and the package, then runs
# benchmarks/suite_run.py (optimize each family's naive kernel, re-measure against the
# hand-written best and PyTorch). Usage on the device machine, from the repository root:
#   BUDGET=16 FAMILIES="gelu softmax" REPEATS=3 bash scripts/gpu_suite.sh
#   INFER=1 BUDGET=8 FAMILIES="softmax transpose" bash scripts/gpu_suite.sh   # specs inferred
#   BUDGET=16 FILES="tests/spellings/softmax_double.cu benchmarks/suite/encoder/naive_elem.cu" bash scripts/gpu_suite.sh
set -u
export PYTHONUNBUFFERED=1
L=${OUT:-/tmp/suite-out}; mkdir -p $L
if [ ! -d /tmp/site/kernelpro ]; then
  # .gpuwheels-hunter/ holds nvidia-cutlass (and the hunter's and test runner's wheels) where present: the
  # matmul-library candidates compile against it (without it the plan is not offered and says why)
  python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpuwheels/*.whl \
    $(ls .gpuwheels-hunter/*.whl 2>/dev/null) >$L/pip.txt 2>&1 || { cat $L/pip.txt; exit 1; }
fi
python3 -m pip install -q --no-deps --no-build-isolation --upgrade --target /tmp/site . >>$L/pip.txt 2>&1 || { cat $L/pip.txt; exit 1; }
export PYTHONPATH=/tmp/site
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw --format=csv > $L/gpu.txt 2>&1
EXTRA=""
# SANITIZE=0: no Compute Sanitizer before a branch (it costs seconds per new best; the branch
# notes then say it did not run). The fresh-process re-measurement still runs.
[ "${SANITIZE:-1}" = 0 ] && export KERNELPRO_COMPUTE_SANITIZER=/nonexistent/compute-sanitizer
[ "${MEASURE_ONLY:-0}" = 1 ] && EXTRA="--measure-only"
[ "${TORCH:-1}" = 1 ] && EXTRA="$EXTRA --torch"
# INFER=1: the naive kernels' specs removed and inferred (optimize --infer-spec; issue 28)
[ "${INFER:-0}" = 1 ] && EXTRA="$EXTRA --infer-spec"
python3 benchmarks/suite_run.py --budget ${BUDGET:-16} --repeats ${REPEATS:-3} --timeout ${RUN_T:-300} \
  --out $L/suite.json --logs $L/logs ${FAMILIES:+--families $FAMILIES} ${FILES:+--files $FILES} $EXTRA 2>&1 | tee $L/suite.txt
tar -czf $L/suite-logs.tar.gz -C $L logs pip.txt gpu.txt 2>/dev/null; rm -rf $L/logs $L/pip.txt
