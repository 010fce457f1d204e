# Tests of the Alltoallv family, its requests, auto and its errors, included
# by tests/CMakeLists.txt in its scope.

mpix_add_mpi_test(request SOURCES alltoallv/test_request.cpp alltoallv/test_claimed_boards.cpp)
# The whole registry costs about a minute per oversubscribed run, so it runs
# oversubscribed twice: at 3 ranks on one node (an odd ring), and at 3 ranks
# as two emulated nodes of 2 and 1, where the hierarchical algorithms have
# on-node and off-node targets at once and a node whose leader is alone
# (at half the cost of 4 ranks as nodes of 3 and 1, which adds nothing).
mpix_add_mpi_test(alltoallv SOURCES alltoallv/test_alltoallv.cpp alltoallv/test_alltoallv_rma.cpp RANKS 2 3)
mpix_add_test(alltoallv.node_size_2 TARGET alltoallv RANKS 3 ENVIRONMENT MPIX_NODE_SIZE=2)
mpix_add_test(alltoallv.forced_native TARGET alltoallv RANKS 2
  ENVIRONMENT MPIX_ALLTOALLV_ALGORITHM=native)
# Every target off-node (MPI RMA only).
mpix_add_test(alltoallv.node_size_1 TARGET alltoallv RANKS 2 ENVIRONMENT MPIX_NODE_SIZE=1)
# No call that needs ptrace permission between ranks: the node channel's
# segments by descriptor passing, blocks staged (channel_cma too, though it
# is told to pull every heap block), windows through MPI RMA.
# (nondumpable_channel: where the kernel refuses for real.)
mpix_add_test(alltoallv.no_ptrace TARGET alltoallv RANKS 2 ENVIRONMENT MPIX_PTRACE_PEERS=off
  MPIX_CHANNEL_CMA_BYTES=1)
# channel_cma pulling every heap block with CMA, also while the buffers
# move between Starts (the offset a block is read at moves with them).
mpix_add_test(alltoallv.cma_every_block TARGET alltoallv RANKS 2 3 ENVIRONMENT MPIX_CHANNEL_CMA_BYTES=1
  ARGS --gtest_filter=*channel_cma*)
# The window paths of node-channel algorithms at 4 ranks (two nodes of two):
# their suites alone, as the whole registry at 4 oversubscribed ranks costs
# minutes.
mpix_registered_algorithms(window_off_node WITH window_off_node)
list(TRANSFORM window_off_node REPLACE "(.+)" "*\\1*")
list(JOIN window_off_node ":" window_off_node_filter)
mpix_add_test(alltoallv.node_size_2.window_off_node TARGET alltoallv RANKS 4 ENVIRONMENT MPIX_NODE_SIZE=2
  ARGS --gtest_filter=${window_off_node_filter})
mpix_add_mpi_test(alltoallv_auto SOURCES alltoallv/test_alltoallv_auto.cpp)
# Each variant below exists for one test (besides running the others in its
# environment): that test skipping there fails the variant.
set(skipped "SKIPPED \\] AutoTest\\.")
mpix_add_test(alltoallv_auto.verbose TARGET alltoallv_auto RANKS 2 ENVIRONMENT MPIX_VERBOSE=1
  FAIL "${skipped}VerboseExplainsTheChoice")
mpix_add_test(alltoallv_auto.exclude_unknown TARGET alltoallv_auto RANKS 2
  ENVIRONMENT MPIX_ALLTOALLV_EXCLUDE=lock,no_such_algorithm
  FAIL "${skipped}AnUnknownExcludedNameFailsOnEveryRank")
# Every algorithm auto could run.
mpix_registered_algorithms(excludable_algorithms WITHOUT selects)
list(JOIN excludable_algorithms "," excludable_algorithms)
mpix_add_test(alltoallv_auto.exclude_all TARGET alltoallv_auto RANKS 2 3
  ENVIRONMENT MPIX_ALLTOALLV_EXCLUDE=${excludable_algorithms}
  FAIL "${skipped}ExcludingEveryCandidateFailsOnEveryRank")
# Ranks with different tuning files fail MPIX_Comm_init on every rank: the
# fault-injection tests (fault.tuning_file_on_one_rank) launch them.
mpix_add_test(alltoallv_auto.tuning_lock TARGET alltoallv_auto RANKS 2 3
  ENVIRONMENT MPIX_TUNING_FILE=${tuning_data}/tuning_lock_cheapest.json
  FAIL "${skipped}ATuningFileThatMakesLockCheapestMakesAutoRunLock")
mpix_add_test(alltoallv_auto.tuning_malformed TARGET alltoallv_auto RANKS 2 3
  ENVIRONMENT MPIX_TUNING_FILE=${tuning_data}/tuning_malformed.json
  FAIL "${skipped}AMalformedTuningFileFailsOnEveryRankNamingFileLineAndKey")
mpix_add_test(alltoallv_auto.tuning_other_mpi TARGET alltoallv_auto RANKS 2
  ENVIRONMENT MPIX_TUNING_FILE=${tuning_data}/tuning_other_mpi.json
  FAIL "${skipped}ATuningFileMeasuredWithAnotherMpiIsRefusedOnEveryRank")
mpix_add_test(alltoallv_auto.online TARGET alltoallv_auto RANKS 2 3
  ENVIRONMENT MPIX_TUNING_FILE=${tuning_data}/tuning_mispredicted.json MPIX_VERBOSE=1 MPIX_AUTO_PERIODS=4
  FAIL "${skipped}AMispredictedPriorLosesTheTournamentInvisibly")
# Every eligible candidate enters the tournament (its agreement, drift
# re-runs, requests completed by MPIX_Test), on one node and on emulated
# nodes.
mpix_add_test(alltoallv_auto.tournament TARGET alltoallv_auto RANKS 2 3 4
  ENVIRONMENT MPIX_AUTO_WITHIN=1000 MPIX_VERBOSE=1 ARGS --gtest_filter=*Tournament*
  FAIL "${skipped}Tournament")
mpix_add_test(alltoallv_auto.tournament.node_size_1 TARGET alltoallv_auto RANKS 2
  ENVIRONMENT MPIX_AUTO_WITHIN=1000 MPIX_VERBOSE=1 MPIX_NODE_SIZE=1 ARGS --gtest_filter=*Tournament*
  FAIL "${skipped}Tournament")
mpix_add_test(alltoallv_auto.tournament.node_size_2 TARGET alltoallv_auto RANKS 4
  ENVIRONMENT MPIX_AUTO_WITHIN=1000 MPIX_VERBOSE=1 MPIX_NODE_SIZE=2 ARGS --gtest_filter=*Tournament*
  FAIL "${skipped}Tournament")
# The tournament's and the online prior's checks with a core per rank
# (2 ranks pinned to 2 cores): they must run, not be dropped as when
# oversubscribed.
mpix_add_test(alltoallv_auto.core_per_rank TARGET alltoallv_auto RANKS 2 WRAPPER taskset -c 0,1
  ENVIRONMENT MPIX_AUTO_WITHIN=1000 MPIX_VERBOSE=1 TEST_CORE_PER_RANK=1 ARGS --gtest_filter=*Tournament*
  FAIL "${skipped}Tournament")
mpix_add_test(alltoallv_auto.online.core_per_rank TARGET alltoallv_auto RANKS 2 WRAPPER taskset -c 0,1
  ENVIRONMENT MPIX_TUNING_FILE=${tuning_data}/tuning_mispredicted.json MPIX_VERBOSE=1 MPIX_AUTO_PERIODS=4
  TEST_CORE_PER_RANK=1 ARGS --gtest_filter=*Mispredicted* FAIL "${skipped}AMispredicted")
# mpix_tune measures this machine (a short sweep, validating every exchange:
# it caught pooled windows over freed heap memory) and auto loads its file.
mpix_add_test(mpix_tune TARGET mpix_tune RANKS 2 FIXTURES_SETUP mpix_tune_output
  ARGS --sizes 8,4096,8192,65536 --repeats 1 --output ${CMAKE_CURRENT_BINARY_DIR}/mpix_tune_output.json
  PASS "mpix_tune: \\[ *[0-9]+%\\] init and re-init costs. .* left.*mpix_tune: \\[100%\\] .*mpix_tune: wrote")
# Merging launches as scripts/tune_defaults.sh does: mpix_tune --merge of
# two launches' files (here the same measured file twice, and the file must
# come back sane and unchanged in its algorithms).
mpix_add_test(mpix_tune.merge FIXTURES_REQUIRED mpix_tune_output
  COMMAND ${CMAKE_COMMAND} -DTUNE=$<TARGET_FILE:mpix_tune> -DINPUT=${CMAKE_CURRENT_BINARY_DIR}/mpix_tune_output.json
          -DOUTPUT=${CMAKE_CURRENT_BINARY_DIR}/mpix_tune_merged.json -P ${CMAKE_CURRENT_SOURCE_DIR}/check_tune_merge.cmake)
mpix_add_test(alltoallv_auto.tuned TARGET alltoallv_auto RANKS 2 FIXTURES_REQUIRED mpix_tune_output
  ENVIRONMENT MPIX_TUNING_FILE=${CMAKE_CURRENT_BINARY_DIR}/mpix_tune_output.json
  FAIL "${skipped}AFileWrittenByMpixTuneIsLoaded")
mpix_add_mpi_test(alltoallv_errors SOURCES alltoallv/test_alltoallv_errors.cpp)
