#!/usr/bin/env bash
# KernelPro's building blocks on the GPU machine (repo root; carry .gpuwheels and .gpuwheels-hunter,
# the latter holding the nvidia-cutlass and snowballstemmer wheels): builds each block's harness
# with nvcc (the GEMM for sm_90a), checks every block against a torch reference, and times the
# tensor-core GEMM against torch.matmul (bf16, 4096^3). Writes to $OUT: summary.txt,
# gpu_blocks.txt (pytest output) and gemm_sm90.json (times, TFLOP/s, fraction of torch.matmul).
# About 2-3 minutes (the CUTLASS GEMM takes a minute or so to compile).
set -u
export PYTHONUNBUFFERED=1
: "${OUT:?set OUT to the folder for the results}"
mkdir -p "$OUT"
say() { echo "== $1 $(date +%T)" | tee -a "$OUT/summary.txt"; }
say install
ls .gpuwheels-hunter/nvidia_cutlass-*.whl >/dev/null 2>&1 || ls .gpuwheels/nvidia_cutlass-*.whl >/dev/null 2>&1 || {
  echo "no nvidia_cutlass wheel in .gpuwheels-hunter/ or .gpuwheels/ (see docs/gpu-validation.md)" | tee -a "$OUT/summary.txt"; exit 1; }
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpuwheels/*.whl $(ls .gpuwheels-hunter/*.whl 2>/dev/null) \
  > "$OUT/pip.txt" 2>&1 || { tail -20 "$OUT/pip.txt"; exit 1; }
python3 -m pip install -q --no-deps --no-build-isolation --target /tmp/site . >> "$OUT/pip.txt" 2>&1 || { tail -20 "$OUT/pip.txt"; exit 1; }
export PYTHONPATH=/tmp/site PATH=/tmp/site/bin:$PATH
cd /tmp && python3 -c "import kernelpro.profilers.hunt.corpus as c, kernelpro.profilers.runtime.measure as m; \
print('cutlass:', c.cutlass_root()); print('gpu_problem:', m.gpu_problem())" 2>&1 | tee -a "$OUT/summary.txt"; cd - >/dev/null
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw,temperature.gpu --format=csv 2>&1 | tee -a "$OUT/summary.txt"
say gpu-tests
# run the installed copy's tests from the checkout; -s shows the GEMM's fraction of torch.matmul
KERNELPRO_GPU_RESULTS="$OUT" timeout 270 python3 -m pytest -q -s -m gpu tests/test_blocks.py -p no:cacheprovider \
  -o addopts="" 2>&1 | tee "$OUT/gpu_blocks.txt" | tail -15 | tee -a "$OUT/summary.txt"
grep -h "fraction of torch.matmul" "$OUT/gpu_blocks.txt" | tee -a "$OUT/summary.txt"
say done
