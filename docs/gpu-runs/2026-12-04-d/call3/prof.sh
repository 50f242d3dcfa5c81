#!/bin/bash
# builds four profiling hosts and runs Nsight Compute on each (clocks not locked); ran from a folder
# prof/ at the repository root (these files were moved here afterwards)
set -x
cd "$(dirname "$0")"
V=../benchmarks/suite_variants
nvcc -O3 -lineinfo -arch=sm_90 -o ce_best host_ce.cu -DKFILE='"../benchmarks/suite/crossentropy/best.cu"' -DSHARED=0 -DGRID=1024 -DBLOCK=512
nvcc -O3 -lineinfo -arch=sm_90 -o ce_ws host_ce.cu -DKFILE="\"$V/crossentropy/v5_ws.cu\"" -DSHARED=131072 -DGRID=132 -DBLOCK=544
nvcc -O3 -lineinfo -arch=sm_90 -o sm_ws host_sm.cu -DKFILE="\"$V/softmax/v5_ws.cu\"" -DSHARED='(4*50257+64)' -DGRID=132 -DBLOCK=544
for b in ce_best ce_ws sm_ws; do ./$b; done
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --section ComputeWorkloadAnalysis --section SourceCounters"
nvcc -O3 -lineinfo -arch=sm_90 -o sm_v6 host_sm.cu -DKFILE="\"$V/softmax/v6_ws.cu\"" -DSHARED="(4*50257+64)" -DGRID=132 -DBLOCK=544; ./sm_v6
for b in ce_best ce_ws sm_ws sm_v6; do ncu --clock-control none $S --launch-skip 2 -c 1 ./$b > $OUT/ncu_$b.txt 2>&1; tail -5 $OUT/ncu_$b.txt; done
