#!/bin/bash
# The measurements of this stop, one after another (never side by side):
# the drop-in's nonblocking exchanges (MPI_Ialltoallv, MPI_Ialltoall, then
# MPI_Wait) against plain MPI, launches alternating, every loop; the
# neighbourhood call on a ring (at 2 ranks two edges to one peer: packed);
# then what
# the set-up in MPI_Init and MPI_Comm_dup costs (setup_cost.c). RUN names
# the phase's output files.
cd "$(git rev-parse --show-toplevel)"
R=results/dropin/2026-11-30-vm-nonblocking
RUN=${RUN:-phase1}
D="python3 benchmarks/dropin.py --bench build/benchmarks/bench_dropin --mpiexec mpiexec.mpich --ranks 2"
N="--intercept build/libmpixrma_intercept.so --launches 5 --form nonblocking"
S=8,512,4096,8192,32768,65536,262144,1048576,4194304
floor() { echo "## copy floor ($1)"; mpiexec.mpich -n 2 build/benchmarks/bench_copy_floor 2>&1 | grep -v "^#"; }
for c in alltoallv alltoall; do
  { floor before; $D $N --collective $c --sizes $S --loops application,exchange,barrier,sweep --outdir /tmp/nb_$c; floor after; } > $R/$RUN-$c-heap.txt 2>&1
  { floor before; $D $N --collective $c --sizes $S --loops application --memory mpi --outdir /tmp/nbm_$c; floor after; } > $R/$RUN-$c-alloc-mem.txt 2>&1
done
{ floor before; $D $N --collective neighbor --sizes $S --loops application,sweep --outdir /tmp/nbn; floor after; } > $R/$RUN-neighbor-heap.txt 2>&1
mpicc.mpich -O2 $R/setup_cost.c -o /tmp/setup_cost
for i in 1 2 3; do
  echo "plain: $(mpiexec.mpich -n 2 /tmp/setup_cost)"
  echo "preloaded: $(LD_PRELOAD=build/libmpixrma_intercept.so mpiexec.mpich -n 2 /tmp/setup_cost)"
  echo "preloaded, MPIX_INTERCEPT_NONBLOCKING=off: $(LD_PRELOAD=build/libmpixrma_intercept.so MPIX_INTERCEPT_NONBLOCKING=off mpiexec.mpich -n 2 /tmp/setup_cost)"
done > $R/$RUN-setup-cost.txt 2>&1
echo campaign done
