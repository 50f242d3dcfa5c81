#!/usr/bin/env bash
# GPU: the report's baselines and peers (issue 30): benchmarks/run_suite.py with no search runs, i.e. per family
# the naive and hand-written kernels side by side, PyTorch eager, torch.compile (default and max-autotune),
# Liger-Kernel and QuACK (benchmarks/suite_peers.py). Resumable like scripts/gpu_report.sh: continues
# $RESULTS (default $OUT/peers.json) and starts no unit past DEADLINE seconds.
#
# The peers travel as wheels that do not fit one call's 64 MiB: put them in .peerw/ (liger_kernel, quack_kernels,
# nvidia_cutlass_dsl{,_libs_base,_libs_core}, apache_tvm_ffi, torch_c_dlpack_ext, einops, cuda_bindings) and the
# nvidia_cutlass_dsl_libs_cu13 wheel unpacked, as a tar.xz split in parts (`split -b`), in .peerx1/ and .peerx2/
# with its sha256 in .peerx2/sha256; carry what fits in each call (.gpuwheels, .peerw, .peerx1 in the first;
# .peerx2 in the next). Parts gather in /tmp/peerstage while the machine stays warm; QuACK is installed once
# the archive is whole, and is "absent" in the results until then (PYTHONPATH is printed for reuse).
#   FAMILIES="softmax layernorm" DEADLINE=520 bash scripts/gpu_peers.sh
set -u
export PYTHONUNBUFFERED=1
L=${OUT:-/tmp/peers-out}; mkdir -p "$L" /tmp/peerstage /tmp/peers
if [ ! -d /tmp/site/kernelpro ]; then
  python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpuwheels/*.whl >"$L/pip.txt" 2>&1 || { cat "$L/pip.txt"; exit 1; }
fi
python3 -m pip install -q --no-deps --no-build-isolation --upgrade --target /tmp/site . >>"$L/pip.txt" 2>&1 || { cat "$L/pip.txt"; exit 1; }
for d in .peerw .peerx1 .peerx2; do [ -d "$d" ] && cp "$d"/* /tmp/peerstage/; done
cd /tmp/peerstage
python3 -c "import cuda.bindings" 2>/dev/null && rm -f cuda_bindings-*.whl  # the machine's own wins
for w in *.whl; do
  [ -e "$w" ] || continue
  [ -e "/tmp/peers/.done-$w" ] && continue
  # each wheel into a folder of its own, then merged: pip --target skips a folder that exists (nvidia_cutlass_dsl/
  # comes in three wheels), so installing them one after another into /tmp/peers would drop the later ones
  rm -rf /tmp/peers-one && python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/peers-one "$w" \
    >>"$L/pip.txt" 2>&1 && cp -r /tmp/peers-one/. /tmp/peers/ && touch "/tmp/peers/.done-$w" \
    || echo "peers: $w did not install (see pip.txt)"
done
if [ ! -e /tmp/peers/.done-cu13 ] && [ -e sha256 ]; then
  if cat cu13part.* | sha256sum | grep -q "$(cat sha256)"; then
    cat cu13part.* | python3 -c "import sys, tarfile; tarfile.open(fileobj=sys.stdin.buffer, mode='r|xz').extractall('/tmp/peers')" && touch /tmp/peers/.done-cu13 && echo "peers: cutlass-dsl cu13 libs unpacked"
  else
    echo "peers: the cu13 archive is not whole yet ($(ls cu13part.* 2>/dev/null | wc -l) parts): QuACK absent"
  fi
fi
cd - >/dev/null
export PYTHONPATH=/tmp/site:/tmp/peers:/tmp/peers/nvidia_cutlass_dsl/dsl_packages
echo "PYTHONPATH=$PYTHONPATH"
python3 -c "import liger_kernel, triton; print('liger', triton.__version__)" 2>&1 | tail -1
python3 -c "import quack; print('quack', quack.__version__)" 2>&1 | tail -1
SRC=${RESULTS:-$L/peers.json}
[ -f "$SRC" ] && [ "$SRC" != "$L/peers.json" ] && cp "$SRC" "$L/peers.json"
# REDO_PEERS="softmax ...": time these families' peers again (a package arrived since)
[ -f "$L/peers.json" ] && [ -n "${REDO_PEERS:-}" ] && python3 - "$L/peers.json" $REDO_PEERS <<'EOF'
import json, sys
p = sys.argv[1]; d = json.load(open(p))
for f in sys.argv[2:]:
    d.get("families", {}).get(f, {}).pop("peers", None)
json.dump(d, open(p, "w"))
EOF
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw --format=csv > "$L/gpu.txt" 2>&1
LEFT=$(( ${DEADLINE:-520} - SECONDS ))
python3 benchmarks/run_suite.py --out "$L/peers.json" --logs "$L/logs" --deadline "$LEFT" --seeds \
  --budget "${BUDGET:-8}" --repeats "${REPEATS:-2}" ${FAMILIES:+--families $FAMILIES} 2>&1 | tee "$L/peers.txt"
rc=${PIPESTATUS[0]}
cp "$L/peers.json" /tmp/peers-state.json 2>/dev/null  # for the next call on the same warm machine (RESULTS=/tmp/peers-state.json)
tar -czf "$L/peers-logs.tar.gz" -C "$L" logs pip.txt gpu.txt 2>/dev/null; rm -rf "$L/logs" "$L/pip.txt"
exit $rc
