# Tests of the RMA layer (windows), included by tests/CMakeLists.txt in its
# scope.

# Windows: once on the real node (direct paths), once with every target
# off-node (MPI RMA only).
# Windows are pairwise: 2 ranks, and 3 for several targets and origins at
# once; each forced path at 2 ranks (oversubscribed runs cost 20-40 s each).
mpix_add_mpi_test(win SOURCES rma/test_win.cpp rma/test_win_memhandle.cpp rma/test_win_sync.cpp rma/test_win_threads.cpp RANKS 2 3)
mpix_add_test(win.mpi_path TARGET win RANKS 2 ENVIRONMENT MPIX_NODE_SIZE=1)
# What ordered windows do only in a single-threaded program: queued CMA puts.
add_executable(win_queued_puts rma/test_win_queued_puts.cpp)
target_link_libraries(win_queued_puts PRIVATE mpix_test_main)
mpix_add_test(win.queued_puts TARGET win_queued_puts RANKS 2 3 4
  ENVIRONMENT TEST_MPI_THREAD_LEVEL=single MPIX_NODE_PATH=cma)
mpix_add_test(win.queued_puts.thread_multiple TARGET win_queued_puts RANKS 2 3 ENVIRONMENT MPIX_NODE_PATH=cma)
# Ordered windows' measured choice between CMA and MPI RMA, at both levels.
add_executable(win_ordered_path rma/test_win_ordered_path.cpp)
target_link_libraries(win_ordered_path PRIVATE mpix_test_main)
mpix_add_test(win.ordered_path TARGET win_ordered_path RANKS 2 3 ENVIRONMENT TEST_MPI_THREAD_LEVEL=single)
mpix_add_test(win.ordered_path.thread_multiple TARGET win_ordered_path RANKS 2 3)
# An MPI that refuses to create a window: an error on every rank, no abort.
# Open MPI over its TCP transport has no one-sided component that works
# unless told (osc pt2pt); MPICH has no such configuration.
if(MPIX_MPI_IS_OPEN_MPI)
  add_executable(window_refused rma/window_refused.c)
  target_link_libraries(window_refused PRIVATE mpixrma)
  mpix_add_test(win.refused TARGET window_refused RANKS 2 ENVIRONMENT OMPI_MCA_btl=self,tcp TIMEOUT 120
    PASS "MPI_Win_create failed.*window_refused: error on every rank|window_refused: error on every rank.*MPI_Win_create failed"
    FAIL "WRONG")
  # RMA over point-to-point (osc pt2pt, windows only without
  # MPI_THREAD_MULTIPLE, hence the benchmark's validated runs rather than
  # the suites): peers' flags land only when pushed out and progressed.
  if(TARGET bench_alltoallv)
    mpix_registered_algorithms(window_off_node WITH window_off_node)
    list(JOIN window_off_node "," window_off_node_list)
    mpix_add_test(alltoallv.osc_pt2pt TARGET bench_alltoallv RANKS 2 TIMEOUT 120
      ENVIRONMENT MPIX_NODE_SIZE=1 OMPI_MCA_btl=self,tcp OMPI_MCA_osc=pt2pt
      ARGS --sizes 8,4096 --algorithms ${window_off_node_list} --iterations 20 --repeats 1 --loop exchange
           --memory heap --csv ${CMAKE_CURRENT_BINARY_DIR}/osc_pt2pt.csv
      PASS "4096 +[a-z_]+ .* ok" FAIL "WRONG|wrong")
  endif()
  # auto whose prior needs a window there: the cheapest one that can be set
  # up runs instead, with the data checked.
  mpix_add_test(alltoallv_auto.windows_refused TARGET alltoallv_auto RANKS 2 TIMEOUT 120
    ENVIRONMENT OMPI_MCA_btl=self,tcp MPIX_VERBOSE=1 ARGS --gtest_filter=*RunsACandidate*
    PASS "cannot run \\(on rank 0: MPI_Win_create failed.*prior instead: " FAIL "FAILED")
endif()
mpix_add_test(win.cma_path TARGET win RANKS 2 ENVIRONMENT MPIX_NODE_PATH=cma MPIX_CMA_MIN_BYTES=0)
