#!/bin/bash
# What the campaign does not run, against plain MPI, one after another:
# the sweep timed from the pattern's first call (bench_dropin's prefix
# loop: the sizes before, then 1000 calls of the last, timed from its
# first), MPI_Alltoallv and MPI_Alltoall, last size 32 KiB and 128 KiB,
# heap and MPI_Alloc_mem; and the persistent and nonblocking forms the
# campaign leaves out (MPI_Alltoall_init, MPI_Neighbor_alltoallv_init,
# MPI_Ialltoall, MPI_Ineighbor_alltoallv), application and exchange loops.
# RUN names the phase; files under the commit measured.
cd "$(git rev-parse --show-toplevel)"
R=results/dropin/2026-12-01-vm-alltoall-passed-on/$(git rev-parse --short HEAD)
mkdir -p "$R"
RUN=${RUN:-phase1}
D="python3 benchmarks/dropin.py --bench build/benchmarks/bench_dropin --mpiexec mpiexec.mpich --ranks 2"
N="--intercept build/libmpixrma_intercept.so --launches 5"
S=8,64,512,4096,8192,32768,65536,262144,1048576,4194304
floor() { echo "## copy floor ($1)"; mpiexec.mpich -n 2 build/benchmarks/bench_copy_floor 2>&1 | grep -v "^#"; }
{
  floor before
  for c in alltoallv alltoall; do
    for memory in heap mpi; do
      for last in 32768 131072; do
        prefix=$(python3 -c "print(','.join(str(8 << i) for i in range(20) if 8 << i <= $last))")
        $D $N --collective $c --memory $memory --loops prefix --prefix-sizes "$prefix" --outdir /tmp/sup_p_$c_$memory_$last
      done
    done
  done
  for form in persistent nonblocking; do
    for c in alltoall neighbor; do
      $D $N --collective $c --form $form --sizes $S --loops application,exchange --outdir /tmp/sup_f_$form_$c
    done
  done
  floor after
} > "$R/$RUN-supplement.txt" 2>&1
echo supplement done
