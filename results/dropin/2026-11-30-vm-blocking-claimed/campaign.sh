#!/bin/bash
# The measurements of this stop, one after another (never side by side):
# the drop-in's blocking exchanges, whose passed-on calls now run the
# claimed calls (MPIX_INTERCEPT_BLOCKING=claimed), against plain MPI,
# launches alternating, every loop and collective; the persistent and
# nonblocking forms again (their paths unchanged); the same blocking runs
# three ways (plain, agreed, claimed: three_ways.sh); and the uniform
# MPI_Alltoallv sweep against MPI_Alltoall's. RUN names the phase's files;
# R, where they go (later stops run this campaign into their own folders).
cd "$(git rev-parse --show-toplevel)"
R=${R:-results/dropin/2026-11-30-vm-blocking-claimed}
RUN=${RUN:-phase1}
D="python3 benchmarks/dropin.py --bench build/benchmarks/bench_dropin --mpiexec mpiexec.mpich --ranks 2"
N="--intercept build/libmpixrma_intercept.so --launches 5"
ALL=$(python3 -c "print(','.join(str(8 << i) for i in range(20)))")
S=8,64,512,4096,8192,32768,65536,262144,1048576,4194304
floor() { echo "## copy floor ($1)"; mpiexec.mpich -n 2 build/benchmarks/bench_copy_floor 2>&1 | grep -v "^#"; }
for c in alltoallv alltoall neighbor; do
  { floor before; $D $N --collective $c --sizes $ALL --loops sweep --outdir /tmp/bc_s_$c;
    $D $N --collective $c --sizes $S --loops application,exchange,barrier --outdir /tmp/bc_$c; floor after; } > $R/$RUN-$c-heap.txt 2>&1
done
for c in alltoallv alltoall; do
  { floor before; $D $N --collective $c --sizes $S --loops application --memory mpi --outdir /tmp/bcm_$c; floor after; } > $R/$RUN-$c-alloc-mem.txt 2>&1
done
{ floor before; $D $N --collective alltoallv --form persistent --sizes $ALL --loops application --outdir /tmp/bcp;
  $D $N --collective alltoallv --form nonblocking --sizes $S --loops application --outdir /tmp/bcn; floor after; } > $R/$RUN-other-forms.txt 2>&1
bash results/dropin/2026-11-30-vm-blocking-claimed/three_ways.sh > $R/$RUN-three-ways.txt 2>&1
bash results/dropin/2026-11-30-vm-uniform-alltoallv-vs-alltoall/run.sh build ${UNIFORM_PAIRS:-10} /tmp/bc_uniform > $R/$RUN-uniform.txt 2>&1
echo campaign done
