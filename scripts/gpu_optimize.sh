#!/usr/bin/env bash
# GPU validation, part 2: `kernelpro optimize` with the built-in proposer on five example
# kernels, their branches re-measured, and MCTS / greedy / random at equal budget.
# Usage on the device machine: BUDGET=12 CMP_BUDGET=10 bash scripts/gpu_optimize.sh
# (RUNS="b_tree_reduce.cu:block_max:max" CMP_KERNELS="" for a subset; GPU_TESTS=1 runs pytest -m gpu first)
set -u
export PYTHONUNBUFFERED=1
BUDGET=${BUDGET:-12}; CMP_BUDGET=${CMP_BUDGET:-10}
RUN_T=${RUN_T:-400}; CMP_T=${CMP_T:-400}; CMP_KERNELS=${CMP_KERNELS-"softmax gelu"}  # set but empty: no comparisons
L=/tmp/gpu2; rm -rf $L; mkdir -p $L
trap 'cp $L/summary.txt $OUT/summary.txt 2>/dev/null; tar -czf $OUT/gpu2.tar.gz -C $L . 2>/dev/null' EXIT
step() { echo "== $1 $(date +%T)" | tee -a $L/summary.txt; }
if [ ! -d /tmp/site/kernelpro ]; then
  python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpuwheels/*.whl >$L/pip.txt 2>&1 || exit 1
fi
python3 -m pip install -q --no-deps --no-build-isolation --upgrade --target /tmp/site . >>$L/pip.txt 2>&1 || exit 1
export PYTHONPATH=/tmp/site
KP="python3 -m kernelpro.profilers.cli"
if [ "${GPU_TESTS:-0}" = 1 ]; then
  step gpu-tests
  timeout ${TEST_T:-240} python3 -m pytest -q -m gpu tests -p no:cacheprovider -o addopts="" > $L/gpu_tests.txt 2>&1
  echo "rc=$?" >> $L/summary.txt; tail -15 $L/gpu_tests.txt >> $L/summary.txt
fi
R=/tmp/optrepo; rm -rf $R; mkdir -p $R; cp examples/*.cu examples/*.toml examples/refs.py $R/
(cd $R && git init -q && git add . && git -c user.name=kp -c user.email=kp@h200 commit -qm examples)
run() {  # file kernel budget search tag [timeout]
  step "optimize $2 ($4, budget $3)"
  (cd $R && timeout ${6:-$RUN_T} $KP optimize $1 --kernel $2 --budget $3 --search $4 --json-events > $L/ev_$5.jsonl 2> $L/ev_$5.err)
  echo "rc=$?" >> $L/summary.txt
  python3 - "$L/ev_$5.jsonl" >> $L/summary.txt <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
done = [e for e in ev if e["type"] == "done"]
br = [e for e in ev if e["type"] == "branch"]
for e in br: print("  branch", e["branch"], f"{e['speedup']:.3f}x", e["title"])
if done: d = done[-1]; print(f"  done: best {d.get('time_speedup') or d.get('speedup'):.3f}x evals {d['evaluations']} failures {d['failures']} stopped {d['stopped_by']} path {d.get('path')}")
else: print("  no done event; last:", ev[-1] if ev else None)
PY
}
# RUNS: "file:kernel:tag ..." (default: the five kinds), each at BUDGET with MCTS
RUNS=${RUNS:-"a_fp64_literal.cu:gelu:gelu a_naive_transpose.cu:transpose:transpose b_sync_reduce_fixed.cu:block_sum:reduce b_rolled_loop.cu:warp_softmax:softmax b_naive_matmul.cu:matmul:matmul"}
for r in $RUNS; do IFS=: read -r f k t <<< "$r"; run $f $k $BUDGET mcts $t; done
step remeasure
timeout ${REM_T:-300} python3 benchmarks/remeasure.py $R --repeats ${REPEATS:-3} --json $L/remeasure.json >> $L/summary.txt 2>&1
case "$CMP_KERNELS" in *softmax*) for s in mcts greedy random; do run b_rolled_loop.cu warp_softmax $CMP_BUDGET $s cmp_softmax_$s $CMP_T; done;; esac
case "$CMP_KERNELS" in *gelu*) for s in mcts greedy random; do run a_fp64_literal.cu gelu $CMP_BUDGET $s cmp_gelu_$s $CMP_T; done;; esac
(cd $R && $KP candidates list > $L/candidates.txt 2>&1; $KP memory --limit 40 > $L/memory.txt 2>&1; git log --all --oneline > $L/gitlog.txt)
step done
