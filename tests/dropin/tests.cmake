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
set(dropin_env_claimed "LD_PRELOAD=${dropin_preload};MPIX_VERBOSE=1;MPIX_INTERCEPT_MIN_BYTES=1024;${dropin_admit_at_once}")
# Most tests are of the agreed path (intercept/served_exchanges.hpp) and
# its requests, over blocks of a few KiB: on a one-node communicator the
# default (MPIX_INTERCEPT_BLOCKING=claimed) leaves every block the claimed
# calls stage to them, so these keep the agreed path on its own.
set(dropin_agreed_path "MPIX_INTERCEPT_BLOCKING=agreed")
set(dropin_env "${dropin_env_claimed};${dropin_agreed_path}")
# MPI-4's persistent collectives run auto's requests only where a program
# asserts it may (MPIX_INTERCEPT_PERSISTENT=library): the tests of those
# say so; by default they run the rows that keep MPI's progress rule.
set(dropin_persistent_library "MPIX_INTERCEPT_PERSISTENT=library")
# A communicator's report of a persistent request that runs the library's.
set(persistent_on_library "persistent requests 1 [(]1 on the library's")
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
# A served call's check rides in its exchange (carried), not in an
# agreement of its own: a pattern served a hundred times costs at most 8
# agreements on its communicator, one served ten thousand times at most 16,
# those before its admission included; and where some rank's displacements
# change on calls drawn at random, every call still delivers MPI's data.
# Oversubscribed ranks (3 and 4) run no long pattern and fewer random
# changes. Each communicator is freed after its scenario, so the reports
# come in order; a wrong call fails the test, and so does its exit status.
# MPI's own Alltoallv is kept out of auto (by capability): a tournament
# won by it, which timing decides, would leave nothing to carry.
mpix_registered_algorithms(alltoallv_mpi_rows WITH mpi_baseline)
list(JOIN alltoallv_mpi_rows "," alltoallv_mpi_rows)
set(carried_hundred "'serve:a hundred' of [0-9]+ ranks, MPI_Alltoallv: 103 calls, 1[0-9][0-9] served[^\n]*agreement misses, [0-8] agreements ")
set(carried_long "'serve:long' of 2 ranks, MPI_Alltoallv: 10003 calls, [1-9][0-9][0-9][0-9][0-9] served[^\n]*agreement misses, ([0-9]|1[0-6]) agreements ")
set(carried_random "'serve:changes at random' of [0-9]+ ranks, MPI_Alltoallv: [0-9]+ calls, [1-9][0-9]* served[^\n]*[1-9][0-9]* missed")
set(carried_reports "${carried_hundred}.*${carried_long}.*${carried_random}")
foreach(n 2 3 4)
  if(n EQUAL 2)
    set(long_calls 10003)
    set(random_calls 2000)
  else()
    set(long_calls 0)
    set(random_calls 300)
    set(carried_reports "${carried_hundred}.*${carried_random}")
  endif()
  mpix_add_test(dropin.carried TARGET dropin_checks RANKS ${n} ARGS --long-patterns ${long_calls} ${random_calls}
    ENVIRONMENT "${dropin_env};MPIX_ALLTOALLV_EXCLUDE=${alltoallv_mpi_rows}"
    PASS "${carried_reports}"
    FAIL "'serve:[^']*' of [0-9]+ ranks, MPI_Alltoallv: [0-9]+ calls, 0 served|WRONG")
endforeach()
# The same with the flags through MPI (a nonblocking allreduce around the
# exchange), as on a communicator of several nodes.
mpix_add_test(dropin.carried_mpi TARGET dropin_checks RANKS 2 ARGS --long-patterns 10003 2000
  ENVIRONMENT "${dropin_env};MPIX_ALLTOALLV_EXCLUDE=${alltoallv_mpi_rows};MPIX_INTERCEPT_AGREEMENT=mpi"
  PASS "${carried_hundred}.*${carried_long}.*${carried_random}"
  FAIL "'serve:[^']*' of [0-9]+ ranks, MPI_Alltoallv: [0-9]+ calls, 0 served|WRONG|node channel")
# An exchange passed on below the served size (to the claimed calls, which
# tell every rank the largest block any rank moved) that grows on one pair
# of ranks only is served within its eight calls: every rank's next call
# agrees (served_exchanges.cpp, blocks_grew), those that move no large
# block included (a rank that did not would hang, which the program's
# watchdog ends). Where the claimed calls are (MPICH: MPI-4).
if(NOT MPIX_MPI_IS_OPEN_MPI)
  mpix_add_test(dropin.grown TARGET dropin_checks RANKS 2 3 4 ARGS --grown 1000 ENVIRONMENT ${dropin_env_claimed}
    PASS "'serve:grown' of [0-9]+ ranks, MPI_Alltoallv: [0-9]+ calls, [1-9][0-9]* served"
    FAIL "'serve:grown' of [0-9]+ ranks, MPI_Alltoallv: [0-9]+ calls, 0 served|WRONG")
endif()
# The same where MPI's own call wins the grown exchange's tournament (every
# other algorithm excluded, as in dropin.back_to_mpi): from then on its
# calls race between PMPI_Alltoallv and the claimed calls (Entry::
# destination), one agreement apart each, and go to the faster. Which one
# rests on measured times, so either passes, each with the claimed calls
# it implies: PMPI_Alltoallv kept, the claimed calls count the small calls,
# the grown one's first few and its claimed leg (under 1100 of 1200);
# the claimed calls kept, all but the few served and PMPI_Alltoallv's leg.
mpix_registered_algorithms(all_but_mpi WITHOUT selects mpi_baseline)
list(JOIN all_but_mpi "," all_but_mpi)
if(NOT MPIX_MPI_IS_OPEN_MPI)
  set(grown_to_mpi "'serve:grown'[^\n]*1 patterns [(]1 back to MPI, faster there. 0 of them.*'serve:grown' of 2 ranks, claimed calls:[^\n]*calls served. 10[0-9][0-9] MPI_Alltoallv, ")
  set(grown_to_claimed "'serve:grown'[^\n]*1 patterns [(]1 back to MPI, faster there. 1 of them.*'serve:grown' of 2 ranks, claimed calls:[^\n]*calls served. 11[0-9][0-9] MPI_Alltoallv, ")
  mpix_add_test(dropin.grown_back_to_mpi TARGET dropin_checks RANKS 2 ARGS --grown 1000 200
    ENVIRONMENT ${dropin_env_claimed} MPIX_ALLTOALLV_EXCLUDE=${all_but_mpi}
    PASS "(${grown_to_mpi}|${grown_to_claimed}).*dropin_checks: ok|dropin_checks: ok.*(${grown_to_mpi}|${grown_to_claimed})"
    FAIL "'serve:grown' of [0-9]+ ranks, MPI_Alltoallv: [0-9]+ calls, 0 served|WRONG")
endif()
# A uniform MPI_Alltoallv whose search finds MPI_Alltoall fastest (every
# other Alltoall algorithm excluded): its search raced MPI_Alltoall, not
# the program's MPI_Alltoallv, which races the claimed calls after it as
# above (MPICH runs it much slower over the same blocks): either passes,
# with its count of claimed calls (the claimed calls kept: all but the
# served and PMPI_Alltoallv's leg; PMPI_Alltoallv kept: under 200 of 300).
mpix_registered_algorithms(alltoall_all_but_mpi FAMILY alltoall WITHOUT selects mpi_baseline)
list(JOIN alltoall_all_but_mpi "," alltoall_all_but_mpi)
if(NOT MPIX_MPI_IS_OPEN_MPI)
  set(uniform_to_claimed "'serve:uniform'[^\n]*1 patterns [(]1 back to MPI, faster there. 1 of them.*'serve:uniform' of 2 ranks, claimed calls:[^\n]*calls served. 2[0-9][0-9] MPI_Alltoallv, ")
  set(uniform_to_mpi "'serve:uniform'[^\n]*1 patterns [(]1 back to MPI, faster there. 0 of them.*'serve:uniform' of 2 ranks, claimed calls:[^\n]*calls served. 1?[0-9]?[0-9] MPI_Alltoallv, ")
  mpix_add_test(dropin.uniform_back_to_mpi TARGET dropin_checks RANKS 2 ARGS --uniform 300
    ENVIRONMENT ${dropin_env_claimed} MPIX_ALLTOALL_EXCLUDE=${alltoall_all_but_mpi}
    PASS "(${uniform_to_claimed}|${uniform_to_mpi}).*dropin_checks: ok|dropin_checks: ok.*(${uniform_to_claimed}|${uniform_to_mpi})"
    FAIL "'serve:uniform' of [0-9]+ ranks, MPI_Alltoallv: [0-9]+ calls, 0 served|WRONG")
endif()
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
  set(persistent_served "'serve:persistent[^']*' of [0-9]+ ranks, [^\n]*${persistent_on_library}")
  mpix_add_test(dropin.persistent TARGET dropin_persistent RANKS 2 3
    ENVIRONMENT ${dropin_env} ${dropin_persistent_library} ARGS --every-way
    PASS "${dropin_loaded}.*MPI_Alltoallv_init from [^\n]*mpixrma_intercept.*${persistent_served}.*${persistent_served}.*${persistent_served}"
    FAIL "WRONG|persistent requests 0")
  # Auto's rule (library): a request runs the MPI's own until its Starts have
  # paid for a search (measured prices: whether these 42 Starts do is not
  # the test's to say), and every way's data is right either way (the
  # program's status, WRONG otherwise; its last line and the drop-in's
  # reports, from two streams and two ranks, arrive in either order).
  set(persistent_renting "'serve:persistent[^']*' of [0-9]+ ranks, [^\n]*persistent requests 1 [(][01] on the library's")
  mpix_add_test(dropin.persistent_rent TARGET dropin_persistent RANKS 2 ARGS --every-way
    ENVIRONMENT "LD_PRELOAD=${dropin_preload};MPIX_VERBOSE=1;MPIX_INTERCEPT_MIN_BYTES=1024;${dropin_persistent_library}"
    PASS "${persistent_renting}.*${persistent_renting}.*${persistent_renting}"
    FAIL "WRONG|persistent requests 0")
  # The default: the three requests run their family's row that keeps MPI's
  # progress rule from their first Start, every way (the reports, one per
  # communicator and collective, come before or after the program's last
  # line).
  # (No groups: a CMake regular expression holds at most 9.)
  set(progress_served "MPI_[A-Za-z_]+: [^\n]*${persistent_on_library}")
  set(ok "dropin_persistent: ok")
  set(three_served "${progress_served}.*${progress_served}.*${progress_served}")
  set(three_served_and_ok "${three_served}.*${ok}|${progress_served}.*${progress_served}.*${ok}.*${progress_served}|\
${progress_served}.*${ok}.*${progress_served}.*${progress_served}|${ok}.*${three_served}")
  mpix_add_test(dropin.persistent_progress TARGET dropin_persistent RANKS 2 3 ENVIRONMENT ${dropin_env}
    ARGS --every-way PASS "${three_served_and_ok}" FAIL "WRONG")
  # Blocks below MPIX_INTERCEPT_MIN_BYTES (here 1 KiB under 1 MiB): the
  # same rows serve them where the communicator is one node; across nodes
  # (emulated: one rank each) the inits go to the MPI's own, as they are
  # (whose test forms MPICH misreports: not every way there).
  set(small_env "LD_PRELOAD=${dropin_preload};MPIX_VERBOSE=1;MPIX_INTERCEPT_MIN_BYTES=1048576")
  mpix_add_test(dropin.persistent_small TARGET dropin_persistent RANKS 2 3 ENVIRONMENT ${small_env}
    ARGS --every-way PASS "${three_served_and_ok}" FAIL "WRONG")
  mpix_add_test(dropin.persistent_small_across_nodes TARGET dropin_persistent RANKS 2
    ENVIRONMENT ${small_env} MPIX_NODE_SIZE=1
    PASS "persistent requests 0 [^\n]*MPI's own.*${ok}|${ok}.*persistent requests 0 [^\n]*MPI's own"
    FAIL "WRONG|persistent requests [1-9]")
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
# iteration starts MPI_Ialltoallv (of ints, and of a strided datatype),
# MPI_Ialltoall and MPI_Ineighbor_alltoallv, a point-to-point pair and, with
# MPI-4, a served persistent MPI_Alltoall, makes a served MPI_Alltoallv
# while they are in flight, and completes them every way MPI allows; then
# more MPI_Ialltoall calls in flight than the drop-in has slots; every
# exchange's data is checked. The served calls must be there, or the test
# proves nothing: with MPI-4, the nonblocking exchanges' reports too (every
# MPI_Ialltoallv, MPI_Ialltoall and, from 3 ranks, MPI_Ineighbor_alltoallv
# served).
# Without the drop-in, the same program (without the persistent
# request, which MPICH 4.0.2's own test forms misreport).
# MPI's own Alltoallv is kept out of auto (by capability), so that every
# blocking call after the first repeat stays served, whichever would win
# here.
add_executable(dropin_nonblocking dropin/dropin_nonblocking.c)
target_link_libraries(dropin_nonblocking PRIVATE MPI::MPI_C)
set(nonblocking_served "'serve:nonblocking' of [0-9]+ ranks, MPI_Alltoallv: 56 calls, 5[0-9] served, 1 patterns [(]0 back")
set(nonblocking_ok "dropin_nonblocking: ok")
# A pattern for report lines in this order with the verdict line anywhere
# among them (stdout and stderr interleave freely).
function(in_order_with_verdict out verdict)
  list(LENGTH ARGN lines)
  set(alternatives "")
  foreach(at RANGE 0 ${lines})
    set(parts "")
    set(i 0)
    foreach(line IN LISTS ARGN)
      if(i EQUAL at)
        list(APPEND parts "${verdict}")
      endif()
      list(APPEND parts "${line}")
      math(EXPR i "${i} + 1")
    endforeach()
    if(at EQUAL lines)
      list(APPEND parts "${verdict}")
    endif()
    list(JOIN parts ".*" joined)
    list(APPEND alternatives "${joined}")
  endforeach()
  list(JOIN alternatives "|" joined)
  set(${out} "${joined}" PARENT_SCOPE)
endfunction()
set(nonblocking_env "${dropin_env};${dropin_persistent_library};MPIX_ALLTOALLV_EXCLUDE=${alltoallv_mpi_rows}")
if(NOT MPIX_MPI_IS_OPEN_MPI)
  # The reports come from rank 0's MPI_Comm_free calls, in this order. At
  # 2 ranks the ring lists its one peer twice, its blocks end to end.
  set(calls_served "'serve:nonblocking' of [0-9]+ ranks, claimed calls: 112 MPI_Ialltoallv, 96 \
MPI_Ialltoall and 0 MPI_Ineighbor_alltoallv calls served")
  set(ring_served "'serve:nonblocking ring' of [234] ranks, claimed calls: 0 MPI_Ialltoallv, 0 \
MPI_Ialltoall and 56 MPI_Ineighbor_alltoallv calls served")
  in_order_with_verdict(pass "${nonblocking_ok}" "${ring_served}" "${nonblocking_served}" "${calls_served}")
else()
  in_order_with_verdict(pass "${nonblocking_ok}" "${nonblocking_served}")
endif()
mpix_add_test(dropin.nonblocking TARGET dropin_nonblocking RANKS 2 3 4 ENVIRONMENT "${nonblocking_env}"
  PASS "${pass}" FAIL "WRONG")
# The other constructors that set a communicator up for the claimed
# calls: MPI_Comm_create_group, MPI_Cart_create, MPI_Cart_sub,
# MPI_Graph_create, MPI_Intercomm_merge, each communicator's MPI_Ialltoallv
# calls checked and (MPICH) served.
add_executable(dropin_constructors dropin/dropin_constructors.c)
target_link_libraries(dropin_constructors PRIVATE MPI::MPI_C)
set(constructors_pass "dropin_constructors: ok")
if(NOT MPIX_MPI_IS_OPEN_MPI)
  set(made_by "")
  foreach(constructor MPI_Comm_create_group MPI_Cart_create MPI_Cart_sub MPI_Graph_create MPI_Intercomm_merge)
    list(APPEND made_by "'serve:${constructor}' of [23] ranks, claimed calls: 8 MPI_Ialltoallv")
  endforeach()
  in_order_with_verdict(constructors_pass "${constructors_pass}" ${made_by})
endif()
mpix_add_test(dropin.constructors TARGET dropin_constructors RANKS 2 3 ENVIRONMENT ${dropin_env}
  PASS "${constructors_pass}" FAIL "WRONG")
mpix_add_test(dropin.nonblocking_plain TARGET dropin_nonblocking RANKS 2 ARGS --no-persistent
  PASS "${nonblocking_ok}" FAIL "WRONG")
if(NOT MPIX_MPI_IS_OPEN_MPI)
  # Where the communicator's ranks span nodes (here emulated), or where a
  # rank has them off (the persistent request left out: the drop-in passes
  # it to MPICH, whose own test forms misreport it), every rank passes its
  # nonblocking exchanges to the MPI, and says why.
  in_order_with_verdict(across "${nonblocking_ok}" "nonblocking exchanges go to the MPI: its ranks span nodes")
  mpix_add_test(dropin.nonblocking_across_nodes TARGET dropin_nonblocking RANKS 2
    ENVIRONMENT "${dropin_env};MPIX_NODE_SIZE=1" PASS "${across}"
    FAIL "WRONG|claimed calls: [0-9]+ MPI_Ialltoallv")
  in_order_with_verdict(off "${nonblocking_ok}"
    "nonblocking exchanges go to the MPI: a rank has MPIX_INTERCEPT or MPIX_INTERCEPT_NONBLOCKING off")
  mpix_add_test(dropin.nonblocking_off_on_one_rank TARGET dropin_nonblocking PROCS 2 ARGS --no-persistent
    ENV_PER_RANK "LD_PRELOAD=${dropin_preload},MPIX_VERBOSE=1" "LD_PRELOAD=${dropin_preload},MPIX_INTERCEPT_NONBLOCKING=off"
    PASS "${off}" FAIL "WRONG|claimed calls: [0-9]+ MPI_Ialltoallv")
  # A program that makes communicators without a nonblocking exchange on
  # them stops paying their set-up (dropin_set_up_budget.c).
  add_executable(dropin_set_up_budget dropin/dropin_set_up_budget.c)
  target_link_libraries(dropin_set_up_budget PRIVATE MPI::MPI_C)
  set(no_more "MPI_Comm_dup: the communicator of 2 ranks it made: nonblocking exchanges go to the MPI: a rank has \
freed 16 communicators")
  in_order_with_verdict(budget "dropin_set_up_budget: ok" "${no_more}")
  mpix_add_test(dropin.set_up_budget TARGET dropin_set_up_budget RANKS 2 ENVIRONMENT ${dropin_env} PASS "${budget}"
    FAIL "WRONG|'serve:late'[^\n]*calls served")
endif()

# MPI's progress rule: starting a nonblocking or persistent collective is
# local, and a rank's completion needs only the other ranks' start. Ranks
# in pairs, one's start or completion before a synchronous send the
# other receives before its own (dropin_progress_order.c), every form the
# drop-in stands in for, over blocks it would serve at once: the three
# nonblocking exchanges are served on the program's duplicate and (from 3
# ranks) its ring (MPICH); by default the three persistent
# inits run their family's row that keeps the rule (their reports must say
# so, MPIX_INTERCEPT_PERSISTENT). A hang fails it, by the program's own
# watchdog.
add_executable(dropin_progress_order dropin/dropin_progress_order.c)
target_link_libraries(dropin_progress_order PRIVATE MPI::MPI_C)
if(NOT MPIX_MPI_IS_OPEN_MPI)
  set(ok "dropin_progress_order: ok")
  set(order_served "${three_served}.*${ok}|${progress_served}.*${progress_served}.*${ok}.*${progress_served}|\
${progress_served}.*${ok}.*${progress_served}.*${progress_served}|${ok}.*${three_served}")
else()
  set(order_served "dropin_progress_order: ok")  # Open MPI 4.1: no MPI-4 persistent collectives
endif()
mpix_add_test(dropin.progress_order TARGET dropin_progress_order RANKS 2 3 4 ENVIRONMENT ${dropin_env}
  PASS "${order_served}" FAIL "WRONG")
if(NOT MPIX_MPI_IS_OPEN_MPI)
  # The nonblocking exchanges served (the persistent inits left to the
  # MPI, so that these reports are the ones that show; at 2 ranks the ring
  # lists its one peer twice).
  set(order_comm_served "'serve:progress order' of [0-9]+ ranks, claimed calls: 24 MPI_Ialltoallv, 24 \
MPI_Ialltoall and 0 MPI_Ineighbor_alltoallv calls served")
  set(order_ring_served "'serve:progress order ring' of [234] ranks, claimed calls: 0 MPI_Ialltoallv, 0 \
MPI_Ialltoall and 24 MPI_Ineighbor_alltoallv calls served")
  in_order_with_verdict(order_pass "${ok}" "${order_ring_served}" "${order_comm_served}")
  mpix_add_test(dropin.progress_order_nonblocking TARGET dropin_progress_order RANKS 2 3 4
    ENVIRONMENT "${dropin_env};MPIX_INTERCEPT_PERSISTENT=mpi" PASS "${order_pass}" FAIL "WRONG")
endif()

# Blocking exchanges the agreed path passes on run the claimed calls on a
# communicator set up for them (MPIX_INTERCEPT_BLOCKING=claimed, the
# default): a rank blocked in one must move its earlier send, which its
# peer receives before making its own call (dropin_blocking_progress.c);
# and, the other way round, a rank whose sixteen nonblocking calls after a
# blocking one must not wait for a peer that has not made them yet.
# Its blocks (256 B) are below the served size, so every call is passed on,
# and the reports must count each one. A hang fails it, by the program's
# own watchdog.
add_executable(dropin_blocking_progress dropin/dropin_blocking_progress.c)
target_link_libraries(dropin_blocking_progress PRIVATE MPI::MPI_C)
set(blocking_ok "dropin_blocking_progress: ok")
if(NOT MPIX_MPI_IS_OPEN_MPI)
  set(blocking_comm "'serve:blocking progress' of [0-9]+ ranks, claimed calls: 16 MPI_Ialltoallv, 0 MPI_Ialltoall \
and 0 MPI_Ineighbor_alltoallv calls served. 17 MPI_Alltoallv, 16 MPI_Alltoall and 0 MPI_Neighbor_alltoallv calls \
the agreed path passed on")
  set(blocking_ring "'serve:blocking progress ring' of [234] ranks, claimed calls: [^\n]*. 0 MPI_Alltoallv, 0 \
MPI_Alltoall and 16 MPI_Neighbor_alltoallv calls the agreed path passed on")
  in_order_with_verdict(blocking_pass "${blocking_ok}" "${blocking_ring}" "${blocking_comm}")
  mpix_add_test(dropin.blocking_progress TARGET dropin_blocking_progress RANKS 2 3 4
    ENVIRONMENT "${dropin_env_claimed}" PASS "${blocking_pass}" FAIL "WRONG")
else()
  mpix_add_test(dropin.blocking_progress TARGET dropin_blocking_progress RANKS 2 3 4
    ENVIRONMENT "${dropin_env_claimed}" PASS "${blocking_ok}" FAIL "WRONG")
endif()
# The same program on the agreed path, its agreements through the node
# channel: their waits must let the MPI progress too.
mpix_add_test(dropin.blocking_progress_agreed TARGET dropin_blocking_progress RANKS 2
  ENVIRONMENT "${dropin_env};MPIX_INTERCEPT_AGREEMENT=channel"
  PASS "${blocking_ok}" FAIL "WRONG")

add_executable(dropin_alltoall dropin/dropin_alltoall.c)
target_link_libraries(dropin_alltoall PRIVATE MPI::MPI_C)
set(dropin_alltoall_served "'serve:alltoall' of [0-9]+ ranks, MPI_Alltoall: [0-9]+ calls, [1-9][0-9]* served")
foreach(ranks 2 3)
  mpix_add_test(dropin.alltoall TARGET dropin_alltoall RANKS ${ranks} ENVIRONMENT ${dropin_env}
    PASS "${dropin_alltoall_served}.*dropin_alltoall: ok|dropin_alltoall: ok.*${dropin_alltoall_served}"
    FAIL "MPI_Alltoall: [0-9]+ calls, 0 served|WRONG")
endforeach()
mpix_add_test(dropin.alltoall.node_size_1 TARGET dropin_alltoall RANKS 2 ENVIRONMENT ${dropin_env} MPIX_NODE_SIZE=1
  PASS "${dropin_alltoall_served}.*dropin_alltoall: ok|dropin_alltoall: ok.*${dropin_alltoall_served}"
  FAIL "MPI_Alltoall: [0-9]+ calls, 0 served|WRONG")
# The blocking MPI_Alltoall calls the agreed path passes on run the claimed
# calls at every block size, as an MPI_Alltoallv's do: a uniform
# MPI_Alltoallv and an MPI_Alltoall then pay alike until their pattern is
# served. Its 32 KiB blocks are copied, not staged; the report must count
# those calls passed on.
if(NOT MPIX_MPI_IS_OPEN_MPI)
  set(alltoall_claimed "'serve:alltoall 32 KiB blocks' of [0-9]+ ranks, claimed calls: [^\n]*. [0-9]+ \
MPI_Alltoallv, [1-9][0-9]* MPI_Alltoall and 0 MPI_Neighbor_alltoallv calls the agreed path passed on")
  mpix_add_test(dropin.alltoall.claimed TARGET dropin_alltoall RANKS 2 3 ENVIRONMENT ${dropin_env_claimed}
    PASS "${alltoall_claimed}.*dropin_alltoall: ok|dropin_alltoall: ok.*${alltoall_claimed}" FAIL "WRONG")
endif()

# The drop-in's MPI_Neighbor_alltoallv: an unmodified sparse code's calls
# on distributed graphs (duplicate edges, self-loops, rotating buffers,
# changing counts) served and checked byte for byte against MPI's own;
# a Cartesian communicator passes through.
add_executable(dropin_neighbor dropin/dropin_neighbor.c)
target_link_libraries(dropin_neighbor PRIVATE MPI::MPI_C)
# Open MPI's MPI_UNWEIGHTED is the address 2, which GCC's access checks take
# for an empty array it reads.
target_compile_options(dropin_neighbor PRIVATE $<$<C_COMPILER_ID:GNU>:-Wno-stringop-overread>)
set(neighbor_served "'serve:ring' of [0-9]+ ranks, MPI_Neighbor_alltoallv: [0-9]+ calls, [1-9][0-9]* served")
function(mpix_add_dropin_neighbor_test name ranks)
  mpix_add_test(dropin.neighbor.${name} TARGET dropin_neighbor RANKS ${ranks} ENVIRONMENT ${dropin_env} ${ARGN}
    PASS "${neighbor_served}.*dropin_neighbor: ok|dropin_neighbor: ok.*${neighbor_served}"
    FAIL "'serve:[^']*' of [0-9]+ ranks, [A-Za-z_]+: [0-9]+ calls, 0 served|'pass:|WRONG")
endfunction()
mpix_add_dropin_neighbor_test(node "2;3")
mpix_add_dropin_neighbor_test(node_size_1 2 MPIX_NODE_SIZE=1)
if(NOT MPIX_MPI_IS_OPEN_MPI)
  # The same calls on the claimed calls (MPIX_INTERCEPT_BLOCKING=claimed):
  # every block is below the size the agreed path serves, so each graph's
  # 40 calls are passed on to them. A neighbour listed twice (the
  # duplicate edges; at 2 ranks the ring's two edges to its one peer),
  # each block apart in the buffers: packed end to end in the order
  # listed. The reports come at MPI_Finalize, in no set order.
  foreach(graph ring rotating)
    set(claimed_${graph} "'serve:${graph}' of [23] ranks, claimed calls: [^\n]*. 0 MPI_Alltoallv, 0 MPI_Alltoall \
and 40 MPI_Neighbor_alltoallv calls the agreed path passed on")
  endforeach()
  in_order_with_verdict(ring_first "dropin_neighbor: ok" "${claimed_ring}" "${claimed_rotating}")
  in_order_with_verdict(rotating_first "dropin_neighbor: ok" "${claimed_rotating}" "${claimed_ring}")
  mpix_add_test(dropin.neighbor.claimed TARGET dropin_neighbor RANKS 2 3 ENVIRONMENT ${dropin_env_claimed}
    PASS "${ring_first}|${rotating_first}" FAIL "WRONG")
endif()

# An unmodified FFT library: FFTW's distributed 2D transform moves its
# blocks (unequal: N is not a multiple of the rank count) with
# MPI_Alltoallv on communicators of its own, duplicated per plan and freed
# with it. Each must be served and report when freed, and the transforms'
# round trip must give back every element.
if(TARGET bench_fftw_dropin)
  set(fftw_served "'[^']*' of [0-9]+ ranks, MPI_Alltoallv: [0-9]+ calls, [1-9][0-9]* served")
  mpix_add_test(dropin.fftw TARGET bench_fftw_dropin RANKS "2;3" ENVIRONMENT ${dropin_env}
    ARGS --sizes 16384 --repeats 1
    PASS "${fftw_served}.*bench_fftw_dropin: data ok|bench_fftw_dropin: data ok.*${fftw_served}"
    FAIL "MPI_Alltoallv: [0-9]+ calls, 0 served|WRONG")
endif()

# Where MPI's own call wins the served exchange's tournament (here the only
# candidate: every other algorithm excluded), the exchange goes back to
# PMPI_Alltoallv, counted, with every call still delivering MPI's data.
set(back_to_mpi "'serve:fixed' of 2 ranks, MPI_Alltoallv: [0-9]+ calls, 1 served, 1 patterns \\(1 back to MPI")
mpix_add_test(dropin.back_to_mpi TARGET dropin_checks RANKS 2
  ENVIRONMENT ${dropin_env} MPIX_ALLTOALLV_EXCLUDE=${all_but_mpi}
  PASS "${back_to_mpi}.*dropin_checks: ok|dropin_checks: ok.*${back_to_mpi}" FAIL "'pass:|WRONG")

# MPIX_INTERCEPT=off, and intercept settings that differ between ranks (an
# MPMD launch): every call passes through (the report says none was
# served), with MPI's data; the second also says why.
set(dropin_none_served "'serve:fixed' of [0-9]+ ranks, MPI_Alltoallv: [0-9]+ calls, 0 served")
mpix_add_test(dropin.off TARGET dropin_checks RANKS 2 ENVIRONMENT ${dropin_env} MPIX_INTERCEPT=off
  PASS "${dropin_none_served}.*dropin_checks: ok|dropin_checks: ok.*${dropin_none_served}"
  FAIL "[1-9][0-9]* served|'pass:|WRONG")
mpix_add_test(dropin.settings_differ.2ranks TARGET dropin_checks PROCS 2 ENV_PER_RANK MPIX_INTERCEPT_REPEATS=5 -
  ENVIRONMENT ${dropin_env} PASS "different MPIX_INTERCEPT\\* settings.*${dropin_none_served}"
  FAIL "[1-9][0-9]* served|'pass:|WRONG")

# Erroneous calls (error returns on one rank, counts that disagree, NULL
# buffers) behave under the drop-in as they do under MPI alone: the same
# error class at every call on every rank, no hang; the good calls around
# them are served.
add_executable(dropin_errors dropin/dropin_errors.c)
target_link_libraries(dropin_errors PRIVATE MPI::MPI_C)
# Only Open MPI 4.1 may fail to end a plain run by itself (it hangs on a
# truncation on one rank of three and crashes on NULL receive buffers);
# on MPICH a plain run that does not end fails the test.
if(MPIX_MPI_IS_OPEN_MPI)
  set(plain_may_fail "Open MPI 4.1")
else()
  set(plain_may_fail "no")
endif()
# aliased: the zero-count exchange repeats until the drop-in could serve
# it, with no size threshold.
set(dropin_errors_min_bytes_truncate 1024)
set(dropin_errors_min_bytes_mismatch 1024)
set(dropin_errors_min_bytes_null 1024)
set(dropin_errors_min_bytes_aliased 0)
set(dropin_errors_min_bytes_split 1024)
# Each on the agreed path, the good calls served; and (MPICH) on the
# claimed calls, every call passed on to them.
set(errors_claimed "claimed calls: [^\n]*. [1-9][0-9]* MPI_Alltoallv[^\n]*passed on")
# split only on MPICH: plain Open MPI 4.1 reports it as MPI_ERR_IN_STATUS
# or MPI_ERR_OTHER, whichever its timing gives, so two runs differ.
set(dropin_errors_modes truncate mismatch null aliased)
if(NOT MPIX_MPI_IS_OPEN_MPI)
  list(APPEND dropin_errors_modes split)
endif()
foreach(mode IN LISTS dropin_errors_modes)
  foreach(n 2 3)
    mpix_add_test(dropin.errors.${mode} TARGET dropin_errors RANKS ${n} ARGS ${mode} TIMEOUT 180
      WRAPPER bash ${CMAKE_CURRENT_SOURCE_DIR}/dropin/dropin_same_as_plain.sh 60 ${dropin_preload} ${plain_may_fail}
      ENVIRONMENT MPIX_VERBOSE=1 MPIX_INTERCEPT_MIN_BYTES=${dropin_errors_min_bytes_${mode}} ${dropin_admit_at_once}
        ${dropin_agreed_path}
      PASS "[1-9][0-9]* served.*dropin_same_as_plain: same as plain MPI" FAIL "WRONG"
      SKIP "plain Open MPI 4.1 does not end by itself here")
    if(NOT MPIX_MPI_IS_OPEN_MPI AND NOT mode STREQUAL "split")
      mpix_add_test(dropin.errors_claimed.${mode} TARGET dropin_errors RANKS ${n} ARGS ${mode} TIMEOUT 180
        WRAPPER bash ${CMAKE_CURRENT_SOURCE_DIR}/dropin/dropin_same_as_plain.sh 60 ${dropin_preload} no
        ENVIRONMENT MPIX_VERBOSE=1
        PASS "${errors_claimed}.*dropin_same_as_plain: same as plain MPI" FAIL "WRONG")
    endif()
  endforeach()
endforeach()
# split on the claimed calls (MPICH): MPICH's own MPI_Neighbor_alltoallv
# reports no error there (it truncates the first message and goes on), so
# this is not compared with a plain run. The claimed calls move a rank's
# segments to one peer as one block, which would put another message's
# bytes in the first receive's place: so rank 1, and only rank 1, ends
# each faulty call with MPI_ERR_TRUNCATE, as MPI's rule says, and every
# other call on every rank succeeds with MPI's data.
if(NOT MPIX_MPI_IS_OPEN_MPI)
  mpix_add_test(dropin.errors_claimed.split TARGET dropin_errors RANKS 2 3 ARGS split TIMEOUT 60
    ENVIRONMENT LD_PRELOAD=${dropin_preload} MPIX_VERBOSE=1
    PASS "rank 1 call 12: MPI_ERR_TRUNCATE.*rank 1 call 13: MPI_ERR_TRUNCATE.*rank 1 call 14: MPI_ERR_TRUNCATE"
    FAIL "rank [02-9] call [0-9]+ class [1-9]|rank 1 call ([0-9]|1[15-9]|[2-9][0-9]) class [1-9]|WRONG")
endif()

# Fortran programs reach the drop-in through all three bindings: MPICH's
# call the C MPI_Alltoallv and MPI_Neighbor_alltoallv (and, but for
# mpi_f08, the constructors, MPI_Start and the other request calls), Open
# MPI's call their PMPI_ functions, so there the drop-in stands in for
# their entry points.
# The served counts of both collectives prove it.
if(MPI_Fortran_FOUND)
  # The C part, built apart from the Fortran flags.
  add_library(dropin_fortran_c_comm OBJECT dropin/dropin_fortran_c_comm.c)
  target_link_libraries(dropin_fortran_c_comm PRIVATE MPI::MPI_C)
  foreach(binding use_mpi use_mpi_f08 mpif_h)
    add_executable(dropin_fortran_${binding} dropin/dropin_fortran.F90 $<TARGET_OBJECTS:dropin_fortran_c_comm>)
    target_link_libraries(dropin_fortran_${binding} PRIVATE MPI::MPI_Fortran MPI::MPI_C)
    if(binding STREQUAL "use_mpi_f08")
      target_compile_definitions(dropin_fortran_${binding} PRIVATE F08)
    elseif(binding STREQUAL "mpif_h")
      # mpif.h declares no interfaces: gfortran must accept one routine
      # called with a scalar here and an array there.
      target_compile_definitions(dropin_fortran_${binding} PRIVATE MPIFH)
      target_compile_options(dropin_fortran_${binding} PRIVATE $<$<Fortran_COMPILER_ID:GNU>:-fallow-argument-mismatch>)
    endif()
    # The three reports (MPI_Alltoallv and MPI_Alltoall on the world, the
    # ring's MPI_Neighbor_alltoallv) come at MPI_Finalize, after the verdict
    # rank 0 writes to the same stream (stderr), in no fixed order; each
    # collective reports once per communicator, and none may serve 0.
    set(served "(MPI_Alltoallv|MPI_Alltoall|MPI_Neighbor_alltoallv): [0-9]+ calls, [1-9][0-9]* served")
    set(pass "dropin_fortran: ok.*${served}.*${served}.*${served}")
    # Where the MPI has MPI-4's persistent collectives (MPICH), the program
    # also runs each persistent collective and each nonblocking exchange,
    # checked, on a communicator it frees before its verdict: its four
    # reports (one per collective and the claimed calls') must say that the
    # drop-in served them all, through every binding. MPICH's mpi_f08 makes
    # communicators and completes requests through PMPI_ alone: there the
    # drop-in stands in for those calls (intercept/fortran_f08_mpich.cpp).
    # The same for the MPI_Ialltoallv calls on a communicator made in C.
    set(fail "WRONG|, 0 served[^\n]*persistent requests 0 ")
    if(NOT MPIX_MPI_IS_OPEN_MPI)
      target_compile_definitions(dropin_fortran_${binding} PRIVATE PERSISTENT)
      set(requests_served "'serve:requests'[^\n]*(${persistent_on_library}|\
claimed calls: 0 MPI_Ialltoallv, 40 MPI_Ialltoall and 40 MPI_Ineighbor_alltoallv calls served)")
      set(pass "${requests_served}.*${requests_served}.*${requests_served}.*${requests_served}\
.*'serve:nonblocking from C'[^\n]* claimed calls: 40 MPI_Ialltoallv.*${pass}")
    endif()
    mpix_add_test(dropin.fortran_${binding} TARGET dropin_fortran_${binding} RANKS 2 3 4 TIMEOUT 120
      ENVIRONMENT ${dropin_env} ${dropin_persistent_library}
      PASS "${pass}"
      FAIL "${fail}")
  endforeach()
endif()
