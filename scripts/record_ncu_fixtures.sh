#!/usr/bin/env bash
# Record real Nsight Compute fixtures for tests/test_ncu.py. Run it ON THE GPU MACHINE from
# the repository root:   bash scripts/record_ncu_fixtures.sh
# It builds tests/fixtures/ncu/kernels.cu (nvcc -lineinfo -arch=sm_90), profiles one launch
# of each example kernel with `ncu --clock-control none`, exports the raw, details, source
# (cuda,sass) and sass pages as CSV into $NCU_FIXTURES_DIR/<kernel>/ (default $OUT/ncu) and
# packs everything into ONE file, $OUT/ncu_fixtures.tar.gz (the transfer returns few files).
# Unpack it on the development machine with:
#   mkdir -p tests/fixtures/ncu/h200 && tar -xzf ncu_fixtures.tar.gz -C tests/fixtures/ncu/h200
# Environment: OUT (default ./ncu_out), NCU (path to ncu), NCU_FIXTURES_DIR, KERNELS (names),
# KEEP_REPORTS=1 to put the .ncu-rep files in the tarball too (when it stays under 14 MiB).
set -u

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SRC="$ROOT/tests/fixtures/ncu/kernels.cu"
OUT="${OUT:-$PWD/ncu_out}"
DEST="${NCU_FIXTURES_DIR:-$OUT/ncu}"
KERNELS="${KERNELS:-transpose_naive transpose_conflict divergent latency_chain copy_kernel}"
SECTIONS="SpeedOfLight MemoryWorkloadAnalysis MemoryWorkloadAnalysis_Tables Occupancy WarpStateStats SourceCounters LaunchStats ComputeWorkloadAnalysis"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/kp_ncu.XXXXXX")"
FAILED=()

mkdir -p "$OUT" "$DEST"

if [ -z "${NCU:-}" ]; then
    NCU="$(command -v ncu || true)"
    if [ -z "$NCU" ]; then
        NCU="$(ls -d /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | sort | tail -n 1)"
    fi
fi
if [ -z "$NCU" ] || [ ! -x "$NCU" ]; then
    echo "FAILED: ncu not found (set NCU=/path/to/ncu)" >&2
    exit 2
fi

{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "ncu: $NCU"
    "$NCU" --version 2>&1
    nvcc --version 2>&1 | tail -n 2
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv 2>&1
} | tee "$DEST/versions.txt"

# Build: -lineinfo so ncu maps SASS to source lines; the source path is recorded as given.
cp "$SRC" "$WORK/kernels.cu"
if ! nvcc -lineinfo -arch=sm_90 -O3 -o "$WORK/kernels" "$WORK/kernels.cu" > "$DEST/build.log" 2>&1; then
    echo "FAILED: nvcc (see $DEST/build.log)" >&2
    cat "$DEST/build.log" >&2
    exit 1
fi
cp "$SRC" "$DEST/kernels.cu"  # the exact source the lines refer to

SECTION_ARGS=()
for s in $SECTIONS; do SECTION_ARGS+=(--section "$s"); done

for k in $KERNELS; do
    d="$DEST/$k"
    mkdir -p "$d"
    echo "== $k"
    t0=$(date +%s)
    if ! "$NCU" --clock-control none --target-processes all -k "$k" -c 1 \
            "${SECTION_ARGS[@]}" --import-source yes -f -o "$WORK/$k" \
            "$WORK/kernels" "$k" > "$d/profile.log" 2>&1; then
        echo "FAILED: profiling $k (tail of $d/profile.log):" >&2
        tail -n 15 "$d/profile.log" >&2
        FAILED+=("$k:profile")
        continue
    fi
    if [ ! -f "$WORK/$k.ncu-rep" ]; then
        echo "FAILED: $k: ncu wrote no report (no launch matched?)" >&2
        tail -n 15 "$d/profile.log" >&2
        FAILED+=("$k:no-report")
        continue
    fi
    rep="$WORK/$k.ncu-rep"
    exp() {  # exp NAME ARGS...: one page as CSV into $d/NAME
        local name="$1"; shift
        if ! "$NCU" -i "$rep" --csv "$@" > "$d/$name" 2> "$d/$name.err"; then
            echo "FAILED: $k: export $name ($*):" >&2
            tail -n 5 "$d/$name.err" >&2
            FAILED+=("$k:$name")
        fi
        [ -s "$d/$name.err" ] || rm -f "$d/$name.err"
    }
    exp raw.csv --page raw --print-units base
    exp details.csv --page details --print-details all
    exp source.csv --page source --print-source cuda,sass
    exp sass.csv --page source --print-source sass
    exp cuda.csv --page source --print-source cuda
    # A human-readable details page with the rule results ("OPT ... Est. Speedup").
    "$NCU" -i "$rep" --page details --print-details all > "$d/details.txt" 2>&1 || FAILED+=("$k:details.txt")
    [ "${KEEP_REPORTS:-0}" = "1" ] && cp "$rep" "$d/"
    echo "   $k: $(( $(date +%s) - t0 )) s, $(wc -l < "$d/source.csv" 2>/dev/null || echo 0) source rows"
done

tar -czf "$OUT/ncu_fixtures.tar.gz" -C "$DEST" . || FAILED+=("tar")
size=$(stat -c %s "$OUT/ncu_fixtures.tar.gz" 2>/dev/null || echo 0)
if [ "$size" -gt $((14 * 1024 * 1024)) ]; then  # the transfer takes 16 MiB a file: drop reports
    echo "tarball is $size bytes: packing again without .ncu-rep files" >&2
    tar -czf "$OUT/ncu_fixtures.tar.gz" --exclude='*.ncu-rep' -C "$DEST" . || FAILED+=("tar")
fi
ls -la "$OUT/ncu_fixtures.tar.gz"
rm -rf "$WORK"

if [ "${#FAILED[@]}" -gt 0 ]; then
    echo "FAILED steps: ${FAILED[*]}" >&2
    exit 1
fi
echo "all kernels recorded into $DEST and $OUT/ncu_fixtures.tar.gz"
