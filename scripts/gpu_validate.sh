#!/usr/bin/env bash
# GPU validation, part 1, on the device machine (repo root, .gpuwheels carried):
# GPU tests, Nsight Compute and NVML fixtures, bench and profile --run on the examples,
# the evaluation-throughput benchmark. Everything lands in $OUT/gpu1.tar.gz + $OUT/summary.txt.
set -u
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
L=/tmp/gpu1; mkdir -p $L
step() { echo "== $1 $(date +%T)" | tee -a $L/summary.txt; }
step install
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpuwheels/*.whl >$L/pip.txt 2>&1 || { cat $L/pip.txt; exit 1; }
python3 -m pip install -q --no-deps --no-build-isolation --target /tmp/site . >>$L/pip.txt 2>&1 || { tail -20 $L/pip.txt; exit 1; }
export PYTHONPATH=/tmp/site PATH=/tmp/site/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv | tee -a $L/summary.txt
python3 -c "import kernelpro.profilers.runtime.measure as m; print('gpu_problem:', m.gpu_problem())" 2>&1 | tee -a $L/summary.txt
step gpu-tests
timeout 300 python3 -m pytest -q -m gpu tests -p no:cacheprovider -o addopts="" 2>&1 | tail -40 > $L/gpu_tests.txt; tail -15 $L/gpu_tests.txt | tee -a $L/summary.txt
step ncu-fixtures
OUT=$L NCU_FIXTURES_DIR=/tmp/ncu_csv timeout 150 bash scripts/record_ncu_fixtures.sh > $L/ncu_record.txt 2>&1; tail -3 $L/ncu_record.txt | tee -a $L/summary.txt
step nvml-fixture
timeout 30 python3 -m kernelpro.profilers.runtime.energy --record $L/h200_burn.json >> $L/summary.txt 2>&1
step bench
for f in a_fp64_literal a_naive_transpose b_transpose b_sync_reduce_fixed b_rolled_loop b_naive_matmul c_divergent c_latency; do
  timeout 60 python3 -m kernelpro.profilers.cli bench examples/$f.cu --json > $L/bench_$f.json 2> $L/bench_$f.err; echo "$f rc=$?" >> $L/summary.txt
done
timeout 60 python3 -m kernelpro.profilers.cli bench examples/a_naive_transpose.cu >> $L/summary.txt 2>&1
step profile-run
for f in a_naive_transpose b_transpose c_divergent c_latency; do
  timeout 90 python3 -m kernelpro.profilers.cli profile examples/$f.cu --run --json > $L/run_$f.json 2> $L/run_$f.err; echo "$f rc=$?" >> $L/summary.txt
  python3 -c "import json,sys; d=json.load(open('$L/run_$f.json')); print([(a['rule'], a['line']) for a in d['advice']])" >> $L/summary.txt 2>&1
done
step eval-throughput
timeout 120 python3 benchmarks/eval_throughput.py >> $L/summary.txt 2>&1
step done
cp $L/summary.txt $OUT/summary.txt
tar -czf $OUT/gpu1.tar.gz -C $L . 2>/dev/null
ls -la $OUT
