#!/usr/bin/env bash
# GPU: `kernelpro optimize --infer-spec` on single kernel files (no spec written by hand: issue 28), each in a fresh
# git repository, the best branch's note and the search's events summarised in $OUT/summary.txt (the device returns
# at most 8 files: the events go in one tarball). Usage on the device machine, from the repository root:
#   FILES="tests/probe_e/sc_row_inclusive.cu tests/probe_d/scan_row_cumsum.cu" BUDGET=6 RUN_T=70 bash scripts/gpu_optimize_files.sh
set -u
L=${OUT:-/tmp/opt-out}; mkdir -p $L
source scripts/gpu_install.sh || exit 1
export KERNELPRO_COMPUTE_SANITIZER=/nonexistent/compute-sanitizer
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $L/summary.txt
for f in ${FILES}; do
  name=$(basename $f .cu); d=/tmp/opt-$name; rm -rf $d; mkdir -p $d $L/events; cp $f $d/
  ( cd $d && git init -q && git add . && git -c user.name=kp -c user.email=kp@x commit -qm start &&
    timeout $((${RUN_T:-70} + 30)) python3 -m kernelpro.optimizer optimize $name.cu --infer-spec --budget ${BUDGET:-6} \
      --json-events --no-energy --time-limit ${RUN_T:-70} > $L/events/$name.jsonl 2> $L/events/$name.err )
  echo "== $name rc=$?" >> $L/summary.txt
  python3 - $L/events/$name.jsonl >> $L/summary.txt <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
for e in ev:
    if e.get("type") in ("evaluated", "tuned", "done", "branch", "error"):
        keep = {k: e.get(k) for k in ("type", "origin", "kind", "ok", "speedup", "times_s", "failure", "title", "best_branch",
                                      "evaluations", "stopped_by") if e.get(k) is not None}
        print(json.dumps(keep)[:400])
PY
  (cd $d && git log --all --format="%D %s" | head -3 && cat *.kernelpro.toml | grep -E "^(small|large)|^grid|^block" ) >> $L/summary.txt 2>&1
done
cd $L && tar -czf /tmp/ev.tar.gz events pip.txt && rm -rf events pip.txt && mv /tmp/ev.tar.gz .
