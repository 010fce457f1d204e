# Tests of the example applications, included by tests/CMakeLists.txt in its
# scope.

# The applications verify their results for MPI_Alltoallv and for every
# registered algorithm (auto included), on one node and with emulated nodes
# of one rank; small sizes, one round. CG runs on a generated Laplacian, on a
# real SPD matrix and on a pattern-only one (made its graph Laplacian + I).
if(TARGET fft3d AND TARGET cg)
  list(JOIN registered_algorithms "," every_algorithm)
  # cg's halo also runs as a neighbourhood exchange: MPI's call and every
  # registered neighbourhood algorithm.
  mpix_registered_algorithms(neighbor_algorithms FAMILY neighbor_alltoallv)
  list(TRANSFORM neighbor_algorithms PREPEND "neighbor:")
  list(JOIN neighbor_algorithms "," every_neighbor_variant)
  # mpix_add_example_test(<name> <example> <ranks> <environment> <args>...)
  function(mpix_add_example_test name example ranks environment)
    set(exchanges mpi,${every_algorithm})
    if(example STREQUAL "cg")
      string(APPEND exchanges ",mpi_neighbor,${every_neighbor_variant}")
    endif()
    mpix_add_test(example.${name} TARGET ${example} RANKS ${ranks} ENVIRONMENT ${environment}
      ARGS ${ARGN} --exchange ${exchanges} PASS "${example}: ok" FAIL "WRONG")
  endfunction()
  foreach(n 2 3)
    mpix_add_example_test(fft3d fft3d ${n} "" --n 11 --iterations 2 --rounds 1 --planner estimate)
    mpix_add_example_test(cg.laplace3d cg ${n} "" --laplace3d 9 --rounds 1)
  endforeach()
  # A real symmetric matrix as it is, and a pattern-only one as its graph
  # Laplacian + I (slow oversubscribed, every variant: 2 ranks).
  mpix_add_example_test(cg.laplace2d_32 cg 2 "" --matrix ${PROJECT_SOURCE_DIR}/matrices/laplace2d_32.mtx --rounds 1)
  mpix_add_example_test(cg.laplace3d_10_pattern cg 2 ""
    --matrix ${PROJECT_SOURCE_DIR}/matrices/laplace3d_10.mtx --rounds 1)
  mpix_add_example_test(fft3d.node_size_1 fft3d 3 MPIX_NODE_SIZE=1
    --n 10 --iterations 2 --rounds 1 --planner estimate)
  mpix_add_example_test(cg.node_size_1 cg 3 MPIX_NODE_SIZE=1 --laplace3d 8 --rounds 1)
  # Even blocks (N divisible by the ranks): the transpose as MPI_Alltoall and
  # as every registered Alltoall algorithm.
  mpix_registered_algorithms(alltoall_algorithms FAMILY alltoall)
  list(TRANSFORM alltoall_algorithms PREPEND "alltoall:")
  list(JOIN alltoall_algorithms "," every_alltoall_variant)
  mpix_add_test(example.fft3d.alltoall TARGET fft3d RANKS 2 3
    ARGS --n 12 --iterations 2 --rounds 1 --planner estimate --exchange mpi_alltoall,${every_alltoall_variant}
    PASS "fft3d: ok" FAIL "WRONG")
  # The Fortran module: every family against MPI's own calls, a strided
  # buffer refused.
  if(TARGET persistent_exchanges_fortran)
    mpix_add_test(example.fortran TARGET persistent_exchanges_fortran RANKS 2 3
      PASS "persistent_exchanges: ok" FAIL "WRONG")
  endif()
endif()
