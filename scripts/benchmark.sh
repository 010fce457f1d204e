#!/usr/bin/env bash
# One driver for every benchmark: scripts/benchmark.sh <name> [arguments].
# Installs dependencies, builds (scripts/prepare_benchmark.sh), runs
# benchmarks/<name>.py on 2 ranks (RANKS=), 3 launches (LAUNCHES=), and
# writes a report: results/<name>/<date>-<host>/ holds the CSVs and plots,
# the benchmark's output, the copy floor measured right after it in the same
# session (bench_copy_floor; FLOOR=0 skips it) and report.md, which names
# the command, the git revision, the MPI and the machine
# (benchmarks/write_report.py). Names:
#   alltoallv  Benchmark 1, the README's main job: uniform Alltoallv, 8 B ..
#              2 MiB per peer, every registered algorithm and the memcpy
#              bound, in three loops (application, exchange only, exchange +
#              barrier) over heap and MPIX_Alloc_mem buffers, on one node and
#              emulated off-node (OFFNODE=0 skips it), with the selector's
#              never-slower check. Arguments go to bench_alltoallv, e.g.
#              --sizes 32768,262144 or --loop application.
#   spmv_halo  Benchmark 2: the SpMV halo Alltoallv of SuiteSparse matrices
#              (SET=medium from ../shared/matrices; SET=tiny|large, or .mtx
#              paths as arguments), application loop over heap buffers
#              (MEMORY=mpix, LOOP=exchange change that).
#   dropin     an unmodified program looping MPI_Alltoallv (8 B .. 4 MiB,
#              five loops), plain and under the drop-in, alternating.
#              Arguments go to benchmarks/dropin.py, e.g. --form persistent
#              (MPI-4's MPI_Alltoallv_init, started and waited on),
#              --collective alltoall or --loops application,sweep.
#   fftw_dropin an unmodified FFT library, FFTW's distributed 2D transform
#              (blocks of about 1, 2, 4 and 8 MiB per peer, FFTW's estimate
#              and measure planners), plain and under the drop-in,
#              alternating. Needs FFTW's MPI library built against the MPI
#              in use: Debian's is Open MPI's, so MPI=openmpi.
#   rma        the RMA layer: memory-handle put latency, RMA-MT (REPEATS=11).
#   neighbor   the neighbourhood Alltoallv of a ring graph (8 B, 32 KiB and
#              256 KiB per edge), application loop, heap: MPI's own
#              MPI_Neighbor_alltoallv against MPIX_Neighbor_alltoallv_init,
#              interleaved; one table per launch. Arguments go to
#              bench_neighbor, e.g. --algorithms mpi,staged,auto (staged:
#              the ring through shared memory, no library code).
#   neighbor_scaling  a neighbourhood request's per-rank heap bytes and init
#              time on a 2D stencil graph (degree 4) at RANKS=4,8,16,32
#              (oversubscribed: read the bytes; the init times include the
#              scheduler's slices). Arguments go to bench_neighbor_scaling.
#   copy_floor the floor of an on-node exchange in the application loop on
#              this machine now (2 ranks): staged and single-copy exchanges
#              through shared memory (no library code) beside MPI_Alltoallv
#              and auto, interleaved; one table per launch. Arguments go to
#              bench_copy_floor, e.g. --sizes 4096,32768.
#   scale      Benchmark 3: Alltoall, uniform Alltoallv and an FFT pencil
#              transpose on simulated clusters of 16 to 1024 ranks (SimGrid
#              SMPI, platforms/, docs/simulation.md): MPI's own call under
#              SMPI's mpich and ompi selectors, every algorithm and auto.
#              Always MPI=simgrid; no copy floor (nothing here is timed on
#              this machine). Arguments go to benchmarks/scale.py, e.g.
#              --layouts 4x16,16x16 --bytes 8,1024.
#   python     the Python binding's cost per Start + Wait against C's and
#              mpi4py's own (benchmarks/python_binding.py). Needs the
#              package, built where mpi4py runs on the MPI in use: Debian's
#              is Open MPI's, so MPI=openmpi.
# MPI=openmpi builds and runs against Open MPI (default: MPICH); reports
# then go to results/<name>-openmpi/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
name=${1:-}
case "$name" in
  alltoallv | spmv_halo | dropin | fftw_dropin | rma | neighbor | neighbor_scaling | copy_floor | python) shift ;;
  scale) shift; export MPI=simgrid FLOOR=0 ;;
  *) echo "usage: $0 alltoallv|spmv_halo|dropin|fftw_dropin|rma|neighbor|neighbor_scaling|copy_floor|python|scale [arguments]" >&2
     exit 2 ;;
esac
{ read -r build; read -r mpiexec; } < <("$root/scripts/prepare_benchmark.sh")
# Benchmark 1 of the Alltoall family ("-- --family alltoall") reports as
# alltoall, beside Alltoallv's.
report=$name
[[ "$name" = alltoallv && " $* " == *" --family alltoall "* ]] && report=alltoall
results=$root/results/$report
[ "${MPI:-mpich}" = mpich ] || [ "$name" = scale ] || results=$results-$MPI
results=$results/$(date -u +%Y-%m-%d)-$(hostname -s)
mkdir -p "$results"
command="$0 $name${*:+ $*}"
common=(--mpiexec "$mpiexec" --outdir "$results")
read -ra launcher <<< "$mpiexec"

run_benchmark() {
case "$name" in
  alltoallv)
    /usr/bin/python3 "$root/benchmarks/alltoallv.py" --bench "$build/benchmarks/bench_alltoallv" \
      "${common[@]}" --ranks "${RANKS:-2}" --launches "${LAUNCHES:-3}" \
      $([ "${OFFNODE:-1}" = 1 ] && echo --offnode) -- "$@" ;;
  spmv_halo)
    selection=(--set "${SET:-medium}" --matrix-dir "${MATRIX_DIR:-$root/../shared/matrices}")
    [ $# -gt 0 ] && selection=("$@")
    /usr/bin/python3 "$root/benchmarks/spmv_halo.py" --bench "$build/benchmarks/bench_spmv_halo" \
      "${common[@]}" --ranks "${RANKS:-2}" --launches "${LAUNCHES:-3}" \
      --memory "${MEMORY:-heap}" --loop "${LOOP:-application}" "${selection[@]}" ;;
  dropin | fftw_dropin)
    program=(--bench "$build/benchmarks/bench_dropin")
    if [ "$name" = fftw_dropin ]; then
      if [ ! -x "$build/benchmarks/bench_fftw_dropin" ]; then
        echo "$0: bench_fftw_dropin was not built: FFTW's MPI library here is not built against ${MPI:-mpich}" \
             "(Debian's is Open MPI's: MPI=openmpi $0 fftw_dropin)" >&2
        exit 2
      fi
      program=(--bench "$build/benchmarks/bench_fftw_dropin" --loops estimate,measure
               --sizes 1048576,2097152,4194304,8388608 --size-per-launch)
    fi
    /usr/bin/python3 "$root/benchmarks/dropin.py" "${program[@]}" \
      --intercept "$build/libmpixrma_intercept.so" "${common[@]}" --ranks "${RANKS:-2}" \
      --launches "${LAUNCHES:-3}" "$@" ;;
  python)
    if [ ! -d "$build/bindings/python/mpixrma" ]; then
      echo "$0: the Python package was not built: the system's mpi4py does not run on ${MPI:-mpich}" \
           "(Debian's is Open MPI's: MPI=openmpi $0 python)" >&2
      exit 2
    fi
    /usr/bin/python3 "$root/benchmarks/python_binding.py" --bench "$build/benchmarks/bench_start_wait" \
      --python-package "$build/bindings/python" "${common[@]}" --ranks "${RANKS:-2}" \
      --launches "${LAUNCHES:-3}" "$@" ;;
  scale)
    /usr/bin/python3 "$root/benchmarks/scale.py" --bench "$build/bench_scale" --outdir "$results" "$@" ;;
  rma)
    /usr/bin/python3 "$root/benchmarks/rma.py" --build "$build" "${common[@]}" \
      --repeats "${REPEATS:-11}" ;;
  neighbor | copy_floor)
    for launch in $(seq "${LAUNCHES:-3}"); do
      "${launcher[@]}" -n "${RANKS:-2}" "$build/benchmarks/bench_$name" "$@" | tee "$results/launch_$launch.txt"
    done ;;
  neighbor_scaling)
    IFS=, read -ra counts <<< "${RANKS:-4,8,16,32}"
    for n in "${counts[@]}"; do
      "${launcher[@]}" -n "$n" "$build/benchmarks/bench_neighbor_scaling" "$@" | tee "$results/ranks_$n.txt"
    done ;;
esac
}

run_benchmark "$@" 2>&1 | tee "$results/output.txt"
# The floor of an on-node exchange in this phase of the machine, measured
# right after the benchmark, so that its ratios can be read against it.
if [ "${FLOOR:-1}" = 1 ] && [ "$name" != copy_floor ]; then
  "${launcher[@]}" -n 2 "$build/benchmarks/bench_copy_floor" --repeats 5 > "$results/copy_floor.txt"
fi
# scale writes its own report (the simulated build has no mpix_info).
if [ "$name" != scale ]; then
  /usr/bin/python3 "$root/benchmarks/write_report.py" --dir "$results" --name "$report" --command "$command" \
    --mpix-info "$build/mpix_info" --source "$root"
fi
