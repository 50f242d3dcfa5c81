#!/usr/bin/env bash
# GPU check of the Ray backend (issue 15), one call on the device machine, results in $OUT:
#   1. the gpu-marked test (tests/test_ray_gpu.py): two workers on one GPU measure real kernels, a
#      hanging and a crashing candidate each cost only themselves;
#   2. the plumbing check: a real `kernelpro optimize --workers 2` end to end, the two workers sharing
#      the one GPU (KERNELPRO_RAY_GPUS_PER_WORKER=0.5: plumbing only, never timing), then no Ray
#      process left;
#   3. where the machine has two GPUs or more: the same search at the same budget with 1 and 2 workers
#      (one whole GPU each), wall time and evaluations per second (target: 2 workers >= 1.8x), and the
#      branches re-measured on one GPU (benchmarks/remeasure.py). With one GPU it says so and skips.
#
# Wheels: .gpuwheels (../shared/device/wheels) and .gpuwheels-ray (Ray 2.60.0 trimmed to about 23 MiB
# by scripts/trim_ray_wheel.py, with jsonschema, jsonschema-specifications, referencing, rpds-py, and
# msgpack, protobuf, click, pyyaml, installed only where the machine lacks them), both carried; the
# commands that fill .gpuwheels-ray are in docs/gpu-validation.md. Within about 4 minutes:
#   timeout 235 bash scripts/gpu_ray.sh   (BUDGET=16 PLUMB_BUDGET=6 SEARCHES="mcts greedy")
# A dry run of the script's own logic without a GPU (the stand-in of tests/ray_standin.py):
# SKIP_INSTALL=1 GPUS=2 SRC_DIR=DIR KERNEL_FILE=standin.cu KERNEL=standin_add PLUMB_SHARE=0 with
# KERNELPRO_RAY_GPUS_PER_WORKER=0 and the stand-in's PYTHONPATH exported.
set -u
export PYTHONUNBUFFERED=1
BUDGET=${BUDGET:-16}; PLUMB_BUDGET=${PLUMB_BUDGET:-6}; SEARCHES=${SEARCHES:-mcts}
KERNEL_FILE=${KERNEL_FILE:-a_naive_transpose.cu}; KERNEL=${KERNEL:-transpose}
L=/tmp/gpuray; rm -rf $L; mkdir -p $L
trap 'cp $L/summary.txt $OUT/summary.txt 2>/dev/null; tar -czf $OUT/gpu_ray.tar.gz -C $L . 2>/dev/null' EXIT
step() { echo "== $1 $(date +%T)" | tee -a $L/summary.txt; cp $L/summary.txt $OUT/summary.txt 2>/dev/null; }
if [ -z "${SKIP_INSTALL:-}" ]; then
  extra=""  # Ray's needs that the machine may already have: its own copies stay in use
  for pair in msgpack:msgpack protobuf:google.protobuf click:click pyyaml:yaml; do
    python3 -c "import ${pair#*:}" 2>/dev/null || extra="$extra $(ls .gpuwheels-ray/${pair%%:*}-*.whl)"
  done
  echo "installed from .gpuwheels-ray besides Ray:${extra:- none}" >> $L/summary.txt
  python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpuwheels/*.whl .gpuwheels-ray/ray-*.whl \
    .gpuwheels-ray/jsonschema*.whl .gpuwheels-ray/referencing-*.whl .gpuwheels-ray/rpds_py-*.whl $extra >$L/pip.txt 2>&1 \
    || { tail -5 $L/pip.txt >> $L/summary.txt; exit 1; }
  python3 -m pip install -q --no-deps --no-build-isolation --upgrade --target /tmp/site . >>$L/pip.txt 2>&1 || exit 1
  export PYTHONPATH=/tmp/site PATH=/tmp/site/bin:$PATH
fi
KP="python3 -m kernelpro.profilers.cli"
GPUS=${GPUS:-$(nvidia-smi -L | grep -c '^GPU')}
step "machine: $GPUS GPU(s); $(python3 -c 'import ray; print("ray", ray.__version__)' 2>&1)"
nvidia-smi -L >> $L/summary.txt 2>&1

step gpu-test
timeout 100 python3 -m pytest -q -m gpu tests/test_ray_gpu.py -p no:cacheprovider -o addopts="" > $L/gpu_test.txt 2>&1
echo "rc=$?" >> $L/summary.txt; tail -5 $L/gpu_test.txt >> $L/summary.txt

R=/tmp/rayrepo; rm -rf $R; mkdir -p $R; SRC_DIR=${SRC_DIR:-examples}; cp $SRC_DIR/*.cu $SRC_DIR/*.toml $SRC_DIR/*.py $R/
(cd $R && git init -q && git add . && git -c user.name=kp -c user.email=kp@h200 commit -qm examples)
leftover() { ps -eo pid,cmd | grep -E 'raylet|gcs_server|ray::|default_worker|parallel.child' | grep -v grep; }
report() {  # events.jsonl wall_s tag
  python3 - "$1" "$2" "$3" >> $L/summary.txt <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.strip().startswith("{")]
done = [e for e in ev if e["type"] == "done"]
for e in ev:
    if e["type"] == "note": print("  note:", e["message"])
    if e["type"] == "branch": print("  branch", e["branch"], f"{e['speedup']:.3f}x", e["title"])
if not done:
    print("  no done event; last:", ev[-1] if ev else None); sys.exit()
d = done[-1]; search_s = d["budget"]["used"]["seconds"]; wall = float(sys.argv[2]) / 1000
row = {"tag": sys.argv[3], "evaluations": d["evaluations"], "failures": d["failures"], "search_s": search_s,
       "wall_s": wall, "evals_per_s": d["evaluations"] / search_s if search_s else None,
       "best": d.get("time_speedup") or d.get("speedup"), "stopped_by": d["stopped_by"]}
print("  " + json.dumps(row))
open(sys.argv[1] + ".row", "w").write(json.dumps(row))
PY
}
run() {  # tag workers search budget [env...]
  local tag=$1 w=$2 s=$3 b=$4; shift 4
  step "optimize $KERNEL --workers $w --search $s --budget $b $*"
  local t0=$(date +%s%N)
  (cd $R && env "$@" timeout 100 $KP optimize $KERNEL_FILE --kernel $KERNEL --workers $w --search $s --budget $b \
     --seed 1 --no-energy --json-events > $L/ev_$tag.jsonl 2> $L/ev_$tag.err)
  echo "rc=$?" >> $L/summary.txt
  report $L/ev_$tag.jsonl "$(( ($(date +%s%N) - t0) / 1000000 ))" $tag
  sleep 2; if leftover > $L/left_$tag.txt; then echo "  LEFT RUNNING:"; cat $L/left_$tag.txt; fi >> $L/summary.txt
}

run plumbing 2 mcts $PLUMB_BUDGET KERNELPRO_RAY_GPUS_PER_WORKER=${PLUMB_SHARE:-0.5}
if [ "$GPUS" -ge 2 ]; then
  for s in $SEARCHES; do
    run "w1_$s" 1 $s $BUDGET
    run "w2_$s" 2 $s $BUDGET
    python3 - $L/ev_w1_$s.jsonl.row $L/ev_w2_$s.jsonl.row >> $L/summary.txt <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
print(f"  {a['tag']} vs {b['tag']}: evaluations/s {a['evals_per_s']:.3f} -> {b['evals_per_s']:.3f}, "
      f"ratio {b['evals_per_s'] / a['evals_per_s']:.2f} (target >= 1.8); wall {a['wall_s']:.1f} s -> {b['wall_s']:.1f} s")
PY
  done
  step remeasure
  timeout 120 python3 benchmarks/remeasure.py $R --repeats 2 --json $L/remeasure.json >> $L/summary.txt 2>&1
else
  step "one GPU here: the 1-vs-2-worker throughput comparison needs a machine with two GPUs (not run; no estimate)"
fi
step done
