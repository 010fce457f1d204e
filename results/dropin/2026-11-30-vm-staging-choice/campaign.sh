#!/bin/bash
# The measurements of this stop, one after another (never side by side):
# the drop-in of this stop (new, build/) against the one of the last stop
# (base: 4b474a7, fixed 16 KiB staging, boards per request, persistent
# inits below 8 KiB left to MPI; built in a worktree: BASE=/tmp/base/build),
# each against plain MPI, launches alternating.
# Both run this stop's bench_dropin, whose prefix loop times the
# persistent init too. RUN names the phase's output files; ONLY=application
# runs the application loop's four runs alone.
cd "$(git rev-parse --show-toplevel)"
R=results/dropin/2026-11-30-vm-staging-choice
BASE=${BASE:-/tmp/base/build}
RUN=${RUN:-phase1}
D="python3 benchmarks/dropin.py --bench build/benchmarks/bench_dropin --mpiexec mpiexec.mpich --ranks 2"
floor() { echo "## copy floor ($1)"; mpiexec.mpich -n 2 build/benchmarks/bench_copy_floor 2>&1 | grep -v "^#"; }
lib() { if [ "$1" = base ]; then echo "$BASE/libmpixrma_intercept.so"; else echo build/libmpixrma_intercept.so; fi; }
S=8,512,4096,8192,16384,32768,65536
for run in 1 2; do
  for v in new base; do
    { floor before; $D --intercept "$(lib $v)" --sizes $S --launches 5 --loops application --form persistent --outdir /tmp/sc_${v}_$run; floor after; } > $R/$RUN-application-$v-run$run.txt 2>&1
  done
done
[ "${ONLY:-}" = application ] && exit 0  # the headline alone, in another phase
for v in new base; do
  { floor before; $D --intercept "$(lib $v)" --launches 5 --loops prefix --form persistent --outdir /tmp/sc_pre_$v; floor after; } > $R/$RUN-prefix-$v.txt 2>&1
  { floor before; $D --intercept "$(lib $v)" --launches 5 --loops prefix --prefix-sizes 8,64,512 --form persistent --outdir /tmp/sc_pres_$v; floor after; } > $R/$RUN-prefix-512-$v.txt 2>&1
done
N="--intercept build/libmpixrma_intercept.so --launches 5"
{ floor before; $D $N --loops exchange,barrier --form persistent --sizes $S,1048576 --outdir /tmp/sc_eb; floor after; } > $R/$RUN-exchange-barrier-new.txt 2>&1
{ floor before; $D $N --loops application --form persistent --memory mpi --sizes $S,1048576 --outdir /tmp/sc_mem; floor after; } > $R/$RUN-application-alloc-mem-new.txt 2>&1
{ floor before; $D $N --collective neighbor --loops application --form persistent --sizes $S --outdir /tmp/sc_nb; floor after; } > $R/$RUN-neighbor-application-new.txt 2>&1
{ floor before; $D $N --collective alltoall --loops application --form persistent --sizes $S --outdir /tmp/sc_aa; floor after; } > $R/$RUN-alltoall-application-new.txt 2>&1
{ floor before; $D $N --loops sweep --form persistent --outdir /tmp/sc_sw; floor after; } > $R/$RUN-sweep-persistent-new.txt 2>&1
for c in alltoallv alltoall neighbor; do
  { floor before; $D $N --collective $c --loops sweep --outdir /tmp/sc_bsw_$c; floor after; } > $R/$RUN-sweep-blocking-$c-new.txt 2>&1
done
# What the blocking calls that pass straight through cost: the small sizes'
# sweep with a third variant, preloaded but switched off.
for c in alltoallv neighbor; do
  { floor before; $D --intercept build/libmpixrma_intercept.so --launches 7 --collective $c --loops sweep \
      --sizes 8,16,32,64,128,256,512,1024 --pass-through --outdir /tmp/sc_pt_$c; floor after; } \
    > $R/$RUN-sweep-small-passthrough-$c-new.txt 2>&1
done
# A persistent init's cost, plain, base and new (init_cost.c).
mpicc.mpich -O2 $R/init_cost.c -o /tmp/init_cost
for b in 8 512 8192; do
  for v in plain base new; do
    case $v in plain) P=;; *) P=$(lib $v);; esac
    echo "$v: $(LD_PRELOAD=$P mpiexec.mpich -n 2 /tmp/init_cost $b 100)"
  done
done > $R/$RUN-init-cost.txt 2>&1
echo campaign done
