#!/usr/bin/env bash
# Sourced by the device scripts: the carried wheels (.gpuwheels, and .gpuwheels-hunter's CUTLASS where present) and
# this package into /tmp/site, the log in $L/pip.txt; PYTHONPATH set. `source scripts/gpu_install.sh || exit 1`
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpuwheels/*.whl $(ls .gpuwheels-hunter/*.whl 2>/dev/null) \
  >$L/pip.txt 2>&1 || { cat $L/pip.txt; return 1; }
python3 -m pip install -q --no-deps --no-build-isolation --target /tmp/site . >>$L/pip.txt 2>&1 || { cat $L/pip.txt; return 1; }
export PYTHONPATH=/tmp/site
