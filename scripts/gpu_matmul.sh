#!/usr/bin/env bash
# GPU: the matrix-product families (issue 26) in one device call of under 10 minutes. Installs the wheels
# and the package as scripts/gpu_suite.sh does, then, with benchmarks/matmul_sweep.py:
#   1. every family's naive kernels, hand-written bests (strict fp32 SIMT, TF32 tensor cores, bf16 tensor
#      cores) at every size with the product's evaluator (correctness against the reference, L2 flushed,
#      median of REPEATS alternating rounds), and cuBLAS through torch under each precision policy
#      (fp32: allow_tf32 off; tf32: on; bf16) timed with the same flush, and the bests' tuning variants
#      (matmul_sweep.VARIANTS: other tile macros, the same checks): $OUT/first.json;
#   2. the bests, their variants and cuBLAS again in a fresh process (FRESH_REPEATS rounds): $OUT/fresh.json;
#   3. the table (policy beside every number; the ratio to cuBLAS of the same policy from the fresh
#      process): $OUT/table.md, printed last.
# Usage on the device machine, from the repository root, `.gpuwheels` carried:
#   bash scripts/gpu_matmul.sh
#   REPEATS=2 FRESH_REPEATS=3 FAMILIES="gemm_fp32 gemm_bf16" bash scripts/gpu_matmul.sh
# Estimated device time of the default call (from docs/gpu-validation.md's rates: about 1.5 s per kernel
# evaluation at every size, more for the naive kernels at 4096^3, which run for 0.05 to 0.3 s per launch;
# nvcc about 1 to 4 s per file there): the wheels and the package 60 s, the first pass (24 files and 12
# variants, one round each, compiles included) about 170 s, the fresh pass (11 bests and 12 variants, 3
# rounds) about 140 s, cuBLAS and the table 20 s: about 6.5 minutes, with the machine's start about 8.
# The time limits bound it at 60 + 330 + 170 + 20 s whatever happens.
# Each step has its own time limit (FIRST_T, FRESH_T seconds) so the call ends inside 10 minutes; a step cut
# short keeps the families it finished (the JSON is written after each).
set -u
export PYTHONUNBUFFERED=1
L=${OUT:-/tmp/matmul-out}; mkdir -p $L
T0=$(date +%s)
if [ ! -d /tmp/site/kernelpro ]; then
  python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpuwheels/*.whl >$L/pip.txt 2>&1 || { cat $L/pip.txt; exit 1; }
fi
python3 -m pip install -q --no-deps --no-build-isolation --upgrade --target /tmp/site . >>$L/pip.txt 2>&1 || { cat $L/pip.txt; exit 1; }
export PYTHONPATH=/tmp/site
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw --format=csv > $L/gpu.txt 2>&1
git rev-parse HEAD >> $L/gpu.txt 2>/dev/null
git status --short benchmarks scripts >> $L/gpu.txt 2>/dev/null
echo "setup: $(( $(date +%s) - T0 )) s" | tee -a $L/sweep.txt
timeout ${FIRST_T:-330} python3 benchmarks/matmul_sweep.py --out $L/first.json --repeats ${REPEATS:-1} --variants \
  ${FAMILIES:+--families $FAMILIES} 2>&1 | tee -a $L/sweep.txt
echo "first pass: $(( $(date +%s) - T0 )) s" | tee -a $L/sweep.txt
timeout ${FRESH_T:-170} python3 benchmarks/matmul_sweep.py --out $L/fresh.json --repeats ${FRESH_REPEATS:-3} \
  --kernels best best_tf32 --variants ${FAMILIES:+--families $FAMILIES} 2>&1 | tee -a $L/sweep.txt
echo "fresh process: $(( $(date +%s) - T0 )) s" | tee -a $L/sweep.txt
if [ -f $L/fresh.json ]; then
  python3 benchmarks/matmul_sweep.py --table $L/first.json $L/fresh.json --out $L/table.md
else
  python3 benchmarks/matmul_sweep.py --table $L/first.json --out $L/table.md
fi
tar -czf $L/matmul-logs.tar.gz -C $L pip.txt 2>/dev/null; rm -f $L/pip.txt
echo "total: $(( $(date +%s) - T0 )) s"
