#!/usr/bin/env bash
# GPU validation, part 3: MCTS / greedy / random at equal budget on one example (K, KN; default the naive half matmul)
# (one size, energy off so evaluations are cheap), then the branches re-measured.
set -u
export PYTHONUNBUFFERED=1
B=${CMP_BUDGET:-10}; T=${CMP_T:-60}; K=${K:-b_naive_matmul}; KN=${KN:-matmul}
L=/tmp/gpu3; rm -rf $L; mkdir -p $L
trap 'cp $L/summary.txt $OUT/summary.txt 2>/dev/null; tar -czf $OUT/gpu3.tar.gz -C $L . 2>/dev/null' EXIT
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpuwheels/*.whl >$L/pip.txt 2>&1 || exit 1
python3 -m pip install -q --no-deps --no-build-isolation --target /tmp/site . >>$L/pip.txt 2>&1 || exit 1
export PYTHONPATH=/tmp/site
R=/tmp/cmprepo; rm -rf $R; mkdir -p $R; cp examples/$K.cu examples/refs.py $R/
grep -v '^large = ' examples/$K.kernelpro.toml > $R/$K.kernelpro.toml
(cd $R && git init -q && git add . && git -c user.name=kp -c user.email=kp@h200 commit -qm m)
for s in mcts greedy random; do
  echo "== $s $(date +%T)" >> $L/summary.txt
  (cd $R && timeout $T python3 -m kernelpro.profilers.cli optimize $K.cu --kernel $KN --budget $B \
     --search $s --no-energy --json-events > $L/cmp_$s.jsonl 2> $L/cmp_$s.err); echo "rc=$?" >> $L/summary.txt
  python3 - $L/cmp_$s.jsonl >> $L/summary.txt <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
n = [e for e in ev if e["type"] == "evaluated" and e.get("parent") is not None]
best = max([e.get("time_speedup") or 0 for e in n if e["ok"]] or [1.0])
print(f"  {len(n)} evaluations, {sum(not e['ok'] for e in n)} failed, best {best:.3f}x")
for e in n: print(f"   {e['node']:2} <- {e['parent']:2} {e.get('time_speedup') or 0:.3f}x {e['description'][:70]}")
PY
done
echo "== remeasure $(date +%T)" >> $L/summary.txt
timeout ${REM_T:-60} python3 benchmarks/remeasure.py $R --repeats 3 >> $L/summary.txt 2>&1
echo "== done $(date +%T)" >> $L/summary.txt
