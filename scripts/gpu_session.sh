#!/usr/bin/env bash
# GPU: one call's worth of checks, each under its own time limit so the call ends inside the device's 600 s.
# Usage on the device machine, from the repository root: bash scripts/gpu_session.sh
#   PYTEST="tests/test_blocks.py -k gemm_sm90"   the GPU tests to run first (pytest -m gpu), PYTEST_T its limit
#   SWEEP="stencil3d scan"   hand-written candidates (benchmarks/suite_variants/<family>/*.cu, or SWEEP_DIR), SWEEP_T its limit
#   SUITES="tf32:benchmarks/suite/gemm_fp32/naive_tf32.cu:150 scan:@scan:120 sm-i:@softmax:60:infer"
#          name:FILES (or @FAMILIES):RUN_T[:infer]   (infer: the specs removed and inferred, issue 28)
# The device returns at most 8 files: everything ends in $OUT/summary.txt and $OUT/all.tar.gz.
set -u
L=${OUT:-/tmp/session-out}; mkdir -p $L
source scripts/gpu_install.sh || exit 1
[ -d .prebuilt-blocks ] && export KERNELPRO_PREBUILT_BLOCKS=$PWD/.prebuilt-blocks  # scripts/prebuild_blocks.sh
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw --format=csv; git log --oneline -1; date -u; } > $L/gpu.txt 2>&1
cp $L/gpu.txt $L/summary.txt
if [ -n "${PYTEST:-}" ]; then
  ( time timeout ${PYTEST_T:-200} python3 -m pytest -q -m gpu -n 2 -p no:cacheprovider -o addopts="" $PYTEST ) > $L/pytest.txt 2>&1
  echo "rc=$?" >> $L/pytest.txt; { echo "== pytest $PYTEST"; tail -25 $L/pytest.txt; } | tee -a $L/summary.txt
fi
if [ -n "${SWEEP:-}" ]; then  # hand-written candidates of benchmarks/suite_variants beside best.cu and PyTorch
  ( time timeout ${SWEEP_T:-200} python3 benchmarks/baseline_sweep.py --families $SWEEP --dir ${SWEEP_DIR:-benchmarks/suite_variants} \
      --repeats 2 --out $L/sweep.json ) > $L/sweep.txt 2>&1
  echo "rc=$?" >> $L/sweep.txt; { echo "== sweep $SWEEP"; grep -v "^\s*$" $L/sweep.txt | tail -30; } | tee -a $L/summary.txt
fi
for s in ${SUITES:-}; do
  IFS=: read -r name what t infer <<< "$s"
  if [ "${what#@}" != "$what" ]; then sel="FAMILIES=${what#@}"; else sel="FILES=$what"; fi
  inf=0; [ "${infer:-}" = infer ] && inf=1
  env OUT=$L/$name SANITIZE=0 TORCH=${TORCH:-1} INFER=$inf BUDGET=${BUDGET:-8} REPEATS=2 RUN_T=$t $sel \
    bash scripts/gpu_suite.sh > $L/$name.txt 2>&1
  { echo "== $name ($sel INFER=$inf RUN_T=$t, $(date -u +%T))"; tail -14 $L/$name.txt; } | tee -a $L/summary.txt
done
date -u >> $L/summary.txt
cd $L && tar -czf /tmp/all.tar.gz --exclude=summary.txt . && find . -mindepth 1 ! -name summary.txt -delete && mv /tmp/all.tar.gz .
