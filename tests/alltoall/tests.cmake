# Tests of the Alltoall family, included by tests/CMakeLists.txt in its scope.

# The Alltoall family: every registered algorithm against MPI_Alltoall at
# 2, 3 and 4 ranks, and with emulated nodes of one and two ranks.
mpix_add_mpi_test(alltoall SOURCES alltoall/test_alltoall.cpp)
mpix_add_test(alltoall.node_size_1 TARGET alltoall RANKS 3 ENVIRONMENT MPIX_NODE_SIZE=1)
mpix_add_test(alltoall.node_size_2 TARGET alltoall RANKS 4 ENVIRONMENT MPIX_NODE_SIZE=2)
# auto leaves node-aware aggregation out on a single node where the node
# channel runs (its algorithms move the node's blocks at a copy each): its
# listing says why. With the channel off, aggregation races there.
mpix_add_test(alltoall.auto_one_node TARGET alltoall RANKS 2 ENVIRONMENT MPIX_VERBOSE=1
  ARGS --gtest_filter=Registry/Alltoall.MatchesMpiAlltoall/auto
  PASS "cannot run \\(one node, where the node channel runs: no block leaves it" FAIL "FAILED")
mpix_add_test(alltoall.auto_one_node_channel_off TARGET alltoall RANKS 2
  ENVIRONMENT MPIX_VERBOSE=1 MPIX_CHANNEL=off
  ARGS --gtest_filter=Registry/Alltoall.MatchesMpiAlltoall/auto --gtest_color=no
  PASS "\\[  PASSED  \\] 1 test" FAIL "FAILED|nothing to aggregate")
# The caller's period of MPI's call stands for it only with eager-sized
# blocks; from 32 KiB MPI's call is raced (the listing says which).
mpix_add_test(alltoall.auto_mpi_period TARGET alltoall RANKS 2 ENVIRONMENT MPIX_VERBOSE=1
  ARGS --gtest_filter=AutoAgainstAMeasuredMpiCall.StandsForMpisCallOnlyWithEagerSizedBlocks --gtest_color=no
  PASS "\\[  PASSED  \\] 1 test" FAIL "FAILED")
# Where ranks outnumber cores (two ranks pinned to one core), auto for a
# family without a cost model runs a node-channel algorithm first, not
# MPI's own call, whose waits hold the core: its listing says so.
mpix_add_test(alltoall.auto_oversubscribed TARGET alltoall PROCS 2 WRAPPER taskset -c 0 ENVIRONMENT MPIX_VERBOSE=1
  ARGS --gtest_filter=Registry/Alltoall.MatchesMpiAlltoall/auto
  PASS "auto \\(ranks outnumber cores: [a-z_]+ first, whose waits yield the core" FAIL "FAILED")
# MPIX_ALLTOALL_EXCLUDE: every candidate but MPI's own call left out of
# auto, which then runs MPI's call at every Start; an unknown name fails.
mpix_registered_algorithms(alltoall_all_but_mpi FAMILY alltoall WITHOUT selects mpi_baseline)
list(GET alltoall_all_but_mpi 0 alltoall_candidate)
list(JOIN alltoall_all_but_mpi "," alltoall_all_but_mpi)
mpix_add_test(alltoall.exclude_all_but_mpi TARGET alltoall RANKS 2 ENVIRONMENT MPIX_ALLTOALL_EXCLUDE=${alltoall_all_but_mpi}
  ARGS --gtest_filter=AlltoallExclude.AutoNeverRunsAnExcludedAlgorithm --gtest_color=no
  PASS "\\[  PASSED  \\] 1 test" FAIL "FAILED|SKIPPED")
# MPI's own call left out instead: auto races the others without it.
mpix_registered_algorithms(alltoall_mpi_rows FAMILY alltoall WITH mpi_baseline)
list(JOIN alltoall_mpi_rows "," alltoall_mpi_rows)
mpix_add_test(alltoall.exclude_mpi TARGET alltoall RANKS 2 3 ENVIRONMENT MPIX_ALLTOALL_EXCLUDE=${alltoall_mpi_rows}
  ARGS --gtest_filter=AlltoallExclude.AutoNeverRunsAnExcludedAlgorithm --gtest_color=no
  PASS "\\[  PASSED  \\] 1 test" FAIL "FAILED|SKIPPED")
mpix_add_test(alltoall.exclude_unknown TARGET alltoall RANKS 2 ENVIRONMENT MPIX_ALLTOALL_EXCLUDE=${alltoall_candidate},no_such_algorithm
  ARGS --gtest_filter=AlltoallExclude.AnUnknownNameFailsOnEveryRank --gtest_color=no
  PASS "\\[  PASSED  \\] 1 test" FAIL "FAILED|SKIPPED")
# node_aggregated at 8 ranks on 2 and 4 emulated nodes (oversubscribed:
# correctness and its own count of off-node messages only).
foreach(node_size 4 2)
  mpix_add_test(alltoall.node_aggregated.node_size_${node_size} TARGET alltoall PROCS 8
    ENVIRONMENT MPIX_NODE_SIZE=${node_size} ARGS --gtest_filter=NodeAggregated.* --gtest_color=no
    PASS "\\[  PASSED  \\] 1 test")
endforeach()
