#!/usr/bin/env bash
# One device call (2026-12-03, second session): the building blocks (issue 14), the bias-gradient
# family with the packed column split (issue 9), the two issue-10 GPU tests fixed without a GPU,
# and the editor's measured findings. Repository root, .gpuwheels and .gpuwheels-hunter carried.
# Everything under $OUT: summary.txt and one tarball per step.
set -u
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
mkdir -p /tmp/b; : "${OUT:?}"; S=$OUT/summary.txt; T0=$(date +%s)
step() { echo "== $1 ($(( $(date +%s) - T0 )) s)" | tee -a "$S"; }
step hunter
OUT=/tmp/b/hunter timeout 260 bash scripts/gpu_hunter.sh > /tmp/b/hunter.log 2>&1; echo "rc=$?" >> "$S"
cat /tmp/b/hunter/summary.txt >> "$S" 2>/dev/null
export PYTHONPATH=/tmp/site PATH=/tmp/site/bin:$PATH
step "bias_grad suite"
SANITIZE=0 BUDGET=16 REPEATS=2 RUN_T=100 FAMILIES=bias_grad OUT=/tmp/b/suite timeout 200 bash scripts/gpu_suite.sh > /tmp/b/suite.log 2>&1; echo "rc=$?" >> "$S"
tail -25 /tmp/b/suite/suite.txt >> "$S" 2>/dev/null
step "gpu tests"
timeout 110 python3 -m pytest -q -rA -m gpu -p no:cacheprovider -o addopts= \
  tests/adversarial/test_cheats_gpu.py::test_bench_command_line_on_the_issue_cheat \
  tests/test_gpu_evaluation.py::test_typed_arguments_memset_steps_and_a_torch_reference \
  tests/test_lsp_measured.py tests/test_realworld.py > /tmp/b/tests.txt 2>&1; echo "rc=$?" >> "$S"
grep -E "^(PASSED|FAILED|ERROR|SKIPPED)" /tmp/b/tests.txt | cut -c1-200 >> "$S"; tail -1 /tmp/b/tests.txt >> "$S"
step done
tar -czf "$OUT/batch_a.tar.gz" -C /tmp/b . 2>/dev/null
