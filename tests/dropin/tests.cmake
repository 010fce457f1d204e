# Tests of the drop-in, included by tests/CMakeLists.txt in its scope.

# The drop-in: an MPI program that does not link mpix-rma runs under
# LD_PRELOAD and checks every MPI_Alltoallv against PMPI_Alltoallv; every
# communicator must have had calls served (MPIX_VERBOSE=1 reports them at
# MPI_Finalize). An ASan build must preload its runtime first.
find_package(Threads REQUIRED)
add_executable(dropin_checks dropin/dropin_checks.c)
target_link_libraries(dropin_checks PRIVATE MPI::MPI_C Threads::Threads)
set(dropin_preload $<TARGET_FILE:mpixrma_intercept>)
if(MPIX_SANITIZE)
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libasan.so OUTPUT_VARIABLE asan_runtime
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(dropin_preload "${asan_runtime}:${dropin_preload}")
endif()
# The correctness tests run patterns of tens of calls, far too few to repay
# a search by the default rule (MPIX_INTERCEPT_ADMISSION=rent, measured
# prices): they admit each pattern as soon as it repeats. dropin.rent tests
# the default rule.
set(dropin_admit_at_once "MPIX_INTERCEPT_ADMISSION=repeats")
set(dropin_env "LD_PRELOAD=${dropin_preload};MPIX_VERBOSE=1;MPIX_INTERCEPT_MIN_BYTES=1024;${dropin_admit_at_once}")
# The report MPIX_VERBOSE=1 prints for a communicator with calls served, when
# it is freed or at MPI_Finalize: without it the drop-in was not there (not
# preloaded, or serving nothing) and the test proves nothing.
set(dropin_served "'serve:fixed' of [0-9]+ ranks, MPI_Alltoallv: [0-9]+ calls, [1-9][0-9]* served")
# Every communicator's patterns, of whatever block sizes, share the one set
# of node-channel rings made at its set-up, its first call that could be
# served (node/node_channel.hpp, shared channels): a second set would be made
# inside a call an application times.
set(dropin_rings_remade "node-channel rings made ([2-9]|[1-9][0-9])")
function(mpix_add_dropin_test name ranks)
  mpix_add_test(dropin.${name} TARGET dropin_checks RANKS ${ranks} ENVIRONMENT ${dropin_env} ${ARGN}
    PASS "${dropin_served}.*dropin_checks: ok|dropin_checks: ok.*${dropin_served}"
    FAIL "'serve:[^']*' of [0-9]+ ranks, MPI_Alltoallv: [0-9]+ calls, 0 served|'pass:|WRONG|${dropin_rings_remade}")
endfunction()
# At 2 ranks a hang (a rank served while its peer goes to MPI, say) fails
# within 45 s; the oversubscribed run at 3 keeps the default limit.
foreach(n 2 3)
  set(limit 300)
  if(n EQUAL 2)
    set(limit 45)
  endif()
  mpix_add_dropin_test(node ${n} TIMEOUT ${limit})
endforeach()
mpix_add_dropin_test(node_size_1 2 MPIX_NODE_SIZE=1)
# An MPI_Alltoallv of uniform blocks is served by the Alltoall family.
mpix_add_test(dropin.uniform_as_alltoall TARGET dropin_checks RANKS 2 ENVIRONMENT ${dropin_env}
  PASS "'serve:uniform' of 2 ranks, MPI_Alltoallv: [0-9]+ calls, [1-9][0-9]* served[^\n]*uniform patterns as Alltoall 1"
  FAIL "'serve:(fixed|rotating)'[^\n]*uniform patterns as Alltoall [1-9]|'pass:|WRONG")
# The default rule (rent or buy, the first admission priced by the set-up's
# own search, each search measured) runs end to end: the set-up's search is
# measured on the communicator of a two-thousand-call pattern, patterns of
# six calls each are never served, every call delivers MPI's data. Whether
# the long pattern is admitted rests on measured prices, which a busy
# machine changes: that decision is unit_admission's, over fixed prices.
set(dropin_short_served "'short:[^']*' of [0-9]+ ranks, MPI_Alltoallv: [0-9]+ calls, [1-9][0-9]* served")
set(dropin_searched "'serve:fixed' of [0-9]+ ranks, MPI_Alltoallv: [0-9]+ calls, [0-9]+ served[^\n]*searches [1-9]")
mpix_add_test(dropin.rent TARGET dropin_checks RANKS "2;3" ARGS --admission-by-rent
  ENVIRONMENT "LD_PRELOAD=${dropin_preload};MPIX_VERBOSE=1;MPIX_INTERCEPT_MIN_BYTES=1024"
  PASS "${dropin_searched}.*dropin_checks: ok|dropin_checks: ok.*${dropin_searched}"
  FAIL "${dropin_short_served}|'pass:|WRONG")
mpix_add_dropin_test(node_size_2 4 MPIX_NODE_SIZE=2)
# MPIX_CHANNEL=off: calls are served with no node-channel segment mapped
# (the agreement goes through MPI_Allreduce); without it, the shared rings
# are mapped.
set(dropin_no_segments "dropin_checks: 0 node-channel segments mapped")
mpix_add_test(dropin.channel_off TARGET dropin_checks RANKS 2 ENVIRONMENT ${dropin_env} MPIX_CHANNEL=off
  PASS "${dropin_served}.*${dropin_no_segments}|${dropin_no_segments}.*${dropin_served}"
  FAIL "'pass:|WRONG|node-channel rings made [1-9]")
mpix_add_test(dropin.channel_segments TARGET dropin_checks RANKS 2 ENVIRONMENT ${dropin_env}
  PASS "dropin_checks: [1-9][0-9]* node-channel segments mapped" FAIL "'pass:|WRONG")
# Each agreement path on its own (auto keeps whichever measures faster):
# the report names the path every served communicator's agreements took
# (those never served agree through MPI only); where the communicator
# spans nodes, the channel path says why not.
set(agreements_through "'serve:[^']*' of [0-9]+ ranks, [^:]+: [0-9]+ calls, [0-9]+ served, [0-9]+ patterns \\([^)]*\\), [0-9]+ agreement misses, [0-9]+ agreements \\([0-9.]+ us each with their check, ")
mpix_add_test(dropin.agreement_channel TARGET dropin_checks RANKS "2;3;4"
  ENVIRONMENT ${dropin_env} MPIX_INTERCEPT_AGREEMENT=channel
  PASS "${dropin_served}.*dropin_checks: ok|dropin_checks: ok.*${dropin_served}"
  FAIL "${agreements_through}MPI_Allreduce|'pass:|WRONG")
mpix_add_test(dropin.agreement_mpi TARGET dropin_checks RANKS 2 ENVIRONMENT ${dropin_env} MPIX_INTERCEPT_AGREEMENT=mpi
  PASS "${dropin_served}.*dropin_checks: ok|dropin_checks: ok.*${dropin_served}"
  FAIL "${agreements_through}node channel|'pass:|WRONG")
# The report gives each pattern's served calls and the agreements at the
# calls that found it cached.
mpix_add_test(dropin.pattern_uses TARGET dropin_checks RANKS 2 ENVIRONMENT ${dropin_env}
  PASS "'serve:fixed' of 2 ranks, MPI_Alltoallv: [^\n]*per pattern, served calls/agreements: [1-9][0-9]*/[1-9][0-9]*"
  FAIL "'serve:fixed'[^\n]*per pattern, served calls/agreements: (none|0/)|'pass:|WRONG")
mpix_add_test(dropin.agreement_channel.node_size_1 TARGET dropin_checks RANKS 2
  ENVIRONMENT ${dropin_env} MPIX_INTERCEPT_AGREEMENT=channel MPIX_NODE_SIZE=1
  PASS "not the node channel: the communicator spans 2 nodes.*dropin_checks: ok|dropin_checks: ok.*not the node channel: the communicator spans 2 nodes"
  FAIL "${agreements_through}node channel|'pass:|WRONG")
# The drop-in's MPI_Alltoall: an unmodified transpose loop's calls served
# and checked byte for byte against MPI's own, at 2 and 3 ranks and on
# emulated nodes.
# MPI-4's persistent collectives through the drop-in (MPICH): every start
# and completion call, served requests mixed with the MPI's own in arrays,
# MPI's rules on active and inactive requests; the same program runs
# without the drop-in, which it cannot tell apart. Open MPI 4.1 has only
# its own MPIX_ forms, which the drop-in must pass through untouched: the
# program calls them instead, and they must come from Open MPI's library
# while MPI_Alltoallv comes from the drop-in's.
add_executable(dropin_persistent dropin/dropin_persistent.c)
target_link_libraries(dropin_persistent PRIVATE MPI::MPI_C)
set(dropin_loaded "MPI_Alltoallv from [^\n]*mpixrma_intercept")
if(NOT MPIX_MPI_IS_OPEN_MPI)
  # MPIX_INTERCEPT_ADMISSION=repeats: each request's search is bought at
  # its first Start, so the library's requests run every way.
  set(persistent_served "'serve:persistent[^']*' of [0-9]+ ranks, [^\n]*persistent requests 1 [(]1 searched")
  mpix_add_test(dropin.persistent TARGET dropin_persistent RANKS 2 3 ENVIRONMENT ${dropin_env} ARGS --every-way
    PASS "${dropin_loaded}.*MPI_Alltoallv_init from [^\n]*mpixrma_intercept.*${persistent_served}.*${persistent_served}.*${persistent_served}"
    FAIL "WRONG|persistent requests 0")
  # The default rule: a request runs the MPI's own until its Starts have
  # paid for a search (measured prices: whether these 42 Starts do is not
  # the test's to say), and every way's data is right either way (the
  # program's status, WRONG otherwise; its last line and the drop-in's
  # reports, from two streams and two ranks, arrive in either order).
  set(persistent_renting "'serve:persistent[^']*' of [0-9]+ ranks, [^\n]*persistent requests 1 [(][01] searched")
  mpix_add_test(dropin.persistent_rent TARGET dropin_persistent RANKS 2 ARGS --every-way
    ENVIRONMENT "LD_PRELOAD=${dropin_preload};MPIX_VERBOSE=1;MPIX_INTERCEPT_MIN_BYTES=1024"
    PASS "${persistent_renting}.*${persistent_renting}.*${persistent_renting}"
    FAIL "WRONG|persistent requests 0")
  mpix_add_test(dropin.persistent_plain TARGET dropin_persistent RANKS 2 PASS "dropin_persistent: ok" FAIL "WRONG")
else()
  set(from_open_mpi "from [^\n]*libmpi[.]")
  mpix_add_test(dropin.persistent_passes_through TARGET dropin_persistent RANKS 2 3 ENVIRONMENT ${dropin_env}
    ARGS --every-way
    PASS "${dropin_loaded}.*MPIX_Alltoallv_init ${from_open_mpi}.*MPIX_Alltoall_init ${from_open_mpi}\
.*MPIX_Neighbor_alltoallv_init ${from_open_mpi}.*dropin_persistent: ok"
    FAIL "WRONG|persistent requests [1-9]")
endif()
# MPI's nonblocking exchanges beside what the drop-in serves: each
# iteration starts MPI_Ialltoallv, MPI_Ialltoall and MPI_Ineighbor_alltoallv
# (passed to the MPI unchanged), a point-to-point pair and, with MPI-4, a
# served persistent MPI_Alltoall, makes a served MPI_Alltoallv while they
# are in flight, and completes them every way MPI allows; every exchange's
# data is checked. The served calls must be there, or the test proves
# nothing. Without the drop-in, the same program (without the persistent
# request, which MPICH 4.0.2's own test forms misreport).
# MPI's own Alltoallv is kept out of auto (by capability), so that every
# blocking call after the first repeat stays served, whichever would win
# here.
add_executable(dropin_nonblocking dropin/dropin_nonblocking.c)
target_link_libraries(dropin_nonblocking PRIVATE MPI::MPI_C)
mpix_registered_algorithms(alltoallv_mpi_rows WITH mpi_baseline)
list(JOIN alltoallv_mpi_rows "," alltoallv_mpi_rows)
set(nonblocking_served "'serve:nonblocking' of [0-9]+ ranks, MPI_Alltoallv: 56 calls, 5[0-9] served, 1 patterns [(]0 back")
mpix_add_test(dropin.nonblocking TARGET dropin_nonblocking RANKS 2 3 4
  ENVIRONMENT "${dropin_env};MPIX_ALLTOALLV_EXCLUDE=${alltoallv_mpi_rows}"
  PASS "${nonblocking_served}.*dropin_nonblocking: ok|dropin_nonblocking: ok.*${nonblocking_served}"
  FAIL "WRONG")
mpix_add_test(dropin.nonblocking_plain TARGET dropin_nonblocking RANKS 2 ARGS --no-persistent
  PASS "dropin_nonblocking: ok" FAIL "WRONG")
