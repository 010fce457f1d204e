# Tests of the neighbourhood family and the sparse exchange, included by
# tests/CMakeLists.txt in its scope.

# The sparse exchange with data (MPIX_Alltoallv_crs) against a brute-force
# reference, at 2, 3 and 4 ranks.
mpix_add_mpi_test(alltoallv_crs SOURCES neighbor_alltoallv/test_alltoallv_crs.cpp)

# The neighbourhood family: every registered algorithm on every graph shape,
# at 2, 3 and 4 ranks, and with every rank its own emulated node.
mpix_add_mpi_test(neighbor_alltoallv SOURCES neighbor_alltoallv/test_neighbor_alltoallv.cpp)
mpix_add_test(neighbor_alltoallv.node_size_1 TARGET neighbor_alltoallv RANKS 4 ENVIRONMENT MPIX_NODE_SIZE=1)
# As for Alltoall: oversubscribed, a node-channel algorithm runs first.
mpix_add_test(neighbor_alltoallv.auto_oversubscribed TARGET neighbor_alltoallv PROCS 2 WRAPPER taskset -c 0
  ENVIRONMENT MPIX_VERBOSE=1 ARGS --gtest_filter=Registry/NeighborOracle.EveryEdgeCarriesItsBlockAsMpiDoes/auto_ring
  PASS "auto \\(ranks outnumber cores: [a-z_]+ first, whose waits yield the core" FAIL "FAILED")
# MPI's own call left out of auto (MPIX_NEIGHBOR_ALLTOALLV_EXCLUDE): auto
# starts from another candidate and races the rest without it.
mpix_registered_algorithms(neighbor_mpi_rows FAMILY neighbor_alltoallv WITH mpi_baseline)
list(JOIN neighbor_mpi_rows "," neighbor_mpi_rows)
mpix_add_test(neighbor_alltoallv.exclude_mpi TARGET neighbor_alltoallv RANKS 2 3
  ENVIRONMENT MPIX_VERBOSE=1 MPIX_NEIGHBOR_ALLTOALLV_EXCLUDE=${neighbor_mpi_rows}
  ARGS --gtest_filter=Registry/NeighborOracle.EveryEdgeCarriesItsBlockAsMpiDoes/auto_* --gtest_color=no
  PASS "\\[  PASSED  \\] [1-9][0-9]* tests" FAIL "FAILED|MPI's own call first")
# Rings of two 64-byte slots: every on-node block streams in chunks under
# flow control, so a pair's duplicate edges must not interleave (unpacked:
# by default small duplicate edges travel as one message).
mpix_add_test(neighbor_alltoallv.small_rings TARGET neighbor_alltoallv RANKS 2 3
  ENVIRONMENT MPIX_CHANNEL_CHUNK_BYTES=64 MPIX_CHANNEL_STAGING_BYTES=256 MPIX_NEIGHBOR_PACK_BYTES=0)
