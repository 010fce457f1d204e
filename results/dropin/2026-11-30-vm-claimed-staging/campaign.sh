#!/bin/bash
# The measurements of this stop, one after another (never side by side).
cd "$(git rev-parse --show-toplevel)"
R=results/dropin/2026-11-30-vm-claimed-staging
D="python3 benchmarks/dropin.py --bench build/benchmarks/bench_dropin --intercept build/libmpixrma_intercept.so --mpiexec mpiexec.mpich --ranks 2"
floor() { echo "## copy floor ($1)"; mpiexec.mpich -n 2 build/benchmarks/bench_copy_floor 2>&1 | grep -v "^#"; }
for run in 1 2 3; do
  { floor before; $D --launches 5 --loops application --form persistent --outdir /tmp/c_a$run; floor after; } > $R/alltoallv-application-run$run.txt 2>&1
done
for run in 1 2; do
  { floor before; $D --launches 5 --collective neighbor --loops application --form persistent --outdir /tmp/c_n$run; floor after; } > $R/neighbor-application-run$run.txt 2>&1
done
{ floor before; $D --launches 5 --loops exchange,barrier --form persistent --outdir /tmp/c_eb; floor after; } > $R/alltoallv-exchange-barrier.txt 2>&1
{ floor before; $D --launches 5 --collective neighbor --loops exchange,barrier --form persistent --outdir /tmp/c_neb; floor after; } > $R/neighbor-exchange-barrier.txt 2>&1
{ floor before; $D --launches 5 --collective alltoall --loops application --form persistent --outdir /tmp/c_aa; floor after; } > $R/alltoall-application.txt 2>&1
{ floor before; $D --launches 5 --loops application --form persistent --memory mpi --outdir /tmp/c_mem; floor after; } > $R/alltoallv-application-alloc-mem.txt 2>&1
{ floor before; $D --launches 5 --loops prefix --form persistent --outdir /tmp/c_pre; floor after; } > $R/alltoallv-prefix.txt 2>&1
{ floor before; $D --launches 5 --loops sweep --form persistent --outdir /tmp/c_sw; floor after; } > $R/alltoallv-sweep.txt 2>&1
{ floor before; $D --launches 5 --collective neighbor --loops sweep --form persistent --outdir /tmp/c_nsw; floor after; } > $R/neighbor-sweep.txt 2>&1
echo campaign done
