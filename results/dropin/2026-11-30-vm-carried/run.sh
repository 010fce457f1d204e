#!/bin/bash
# Carried checks against per-call agreements, and both against plain MPI:
# bench_dropin (2 ranks, MPICH) without the drop-in, with the drop-in of
# the commit before (BASE: every served call agreed) and with this one
# (NEW: carried), interleaved launch by launch in a rotating order.
# Usage: [LOOPS="application exchange barrier"] [SIZES=...] run.sh BUILD BASE_INTERCEPT OUTDIR [LAUNCHES]
set -u
build=$1 base=$2 out=$3 launches=${4:-5}
sizes=${SIZES:-64,8192,32768,131072,1048576}
mkdir -p "$out"
variants=(plain base new)
mpiexec.mpich -n 2 "$build/benchmarks/bench_copy_floor" > "$out/copy_floor_before.txt" 2>&1
for launch in $(seq "$launches"); do
  for loop in ${LOOPS:-application exchange barrier}; do
    for k in 0 1 2; do
      v=${variants[$(( (launch + k) % 3 ))]}
      case $v in
        plain) env=() ;;
        base) env=(-env LD_PRELOAD "$base") ;;
        new) env=(-env LD_PRELOAD "$build/libmpixrma_intercept.so") ;;
      esac
      mpiexec.mpich -n 2 "${env[@]}" "$build/benchmarks/bench_dropin" --sizes $sizes --loop $loop \
        --csv "$out/$v-$loop-$launch.csv" > /dev/null
    done
  done
done
mpiexec.mpich -n 2 "$build/benchmarks/bench_copy_floor" > "$out/copy_floor_after.txt" 2>&1
