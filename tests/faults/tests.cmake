# Tests of faults: finalize, fatal errors, injected faults, included by
# tests/CMakeLists.txt in its scope.

add_executable(finalize_cleanup faults/finalize_cleanup.c live_resources.cpp)
target_link_libraries(finalize_cleanup PRIVATE mpixrma_internal)
target_include_directories(finalize_cleanup PRIVATE ${PROJECT_SOURCE_DIR})
mpix_add_test(finalize_cleanup TARGET finalize_cleanup RANKS 2 3 4)

add_executable(fatal_error faults/fatal_error.c)
target_link_libraries(fatal_error PRIVATE mpixrma)
mpix_add_test(fatal_error TARGET fatal_error RANKS 2 3 TIMEOUT 120 NO_LEAK_CHECK EXIT abort
  PASS "MPIX_Alltoallv_init: on rank 1: recvcounts\\[0\\] = -1 is negative")

# Fault injection (faults/fault_injection.c): ranks that leave mid-loop, datatypes
# usable on some ranks only, freed handles, ranks launched with different
# MPIX_* values or tuning files. Every case must end by itself, well inside
# its limit: a hang fails it.
add_executable(fault_injection faults/fault_injection.c)
target_link_libraries(fault_injection PRIVATE mpixrma)
# The job ends with the leaving rank's exit code: exit(1), MPI_Abort(3),
# return 1 from main.
set(fault_exit_code_exit 1)
set(fault_exit_code_abort 3)
set(fault_exit_code_return 1)
set(fault_left_pass "fault_injection: rank 1 leaves \\([a-z]+\\) at iteration [0-9]+, every earlier iteration correct.*the job ended by itself")
mpix_registered_algorithms(window_off_node WITH window_off_node)
foreach(algorithm IN LISTS registered_algorithms)
  set(node_sizes "")
  if(algorithm IN_LIST window_off_node)
    list(APPEND node_sizes 1)  # its window path only runs across nodes: leaving mid-loop there too
  endif()
  foreach(mode exit abort return)
    foreach(node_size "" ${node_sizes})
      set(name fault.${mode}.${algorithm})
      set(environment "")
      if(node_size)
        set(name ${name}.node_size_${node_size})
        set(environment MPIX_NODE_SIZE=${node_size})
      endif()
      # A process that leaves without MPI_Finalize leaves MPI's memory behind.
      mpix_add_test(${name} TARGET fault_injection PROCS 2 ARGS ${mode} ${algorithm} TIMEOUT 90 NO_LEAK_CHECK
        WRAPPER bash ${CMAKE_CURRENT_SOURCE_DIR}/faults/expect_job_ends.sh 60 ${fault_exit_code_${mode}}
        ENVIRONMENT ${environment} PASS "${fault_left_pass}" FAIL "WRONG")
    endforeach()
  endforeach()
  mpix_add_test(fault.stale_handles.${algorithm} TARGET fault_injection PROCS 2 ARGS stale ${algorithm} TIMEOUT 90
    PASS "fault_injection: ok")
endforeach()
mpix_add_test(fault.uncommitted_type TARGET fault_injection RANKS 2 3 ARGS uncommitted ${registered_algorithms}
  TIMEOUT 45 PASS "fault_injection: ok")
# MPMD launches: rank 0 and rank 1 with different values ("-": none).
function(mpix_add_mpmd_fault_test name rank0 rank1 mode)
  mpix_add_test(fault.${name} TARGET fault_injection PROCS 2 ENV_PER_RANK "${rank0}" "${rank1}" ARGS ${mode} ${ARGN}
    TIMEOUT 45 PASS "fault_injection: ok")
endfunction()
mpix_add_mpmd_fault_test(node_size_differs MPIX_NODE_SIZE=1 MPIX_NODE_SIZE=2 config_differs)
mpix_add_mpmd_fault_test(periods_differ MPIX_AUTO_PERIODS=4 MPIX_AUTO_PERIODS=16 config_differs)
mpix_add_mpmd_fault_test(tuning_file_on_one_rank MPIX_TUNING_FILE=${tuning_data}/tuning_lock_cheapest.json -
  config_differs)
mpix_add_mpmd_fault_test(overflowing_tuning_file_on_one_rank MPIX_TUNING_FILE=${tuning_data}/tuning_overflow.json -
  config_differs)
# The variables that may differ between ranks do differ (rank 0 small
# chunks and staging, no spinning, blocks by reference from 1 KiB, verbose;
# rank 1 the defaults): every algorithm still moves the right data.
mpix_add_mpmd_fault_test(per_rank_values_differ
  "MPIX_CHANNEL_CHUNK_BYTES=256,MPIX_CHANNEL_STAGING_BYTES=4096,MPIX_CHANNEL_SPIN=0,MPIX_CHANNEL_SINGLE_COPY_BYTES=1024,MPIX_CHANNEL_CMA_BYTES=1024,MPIX_VERBOSE=1"
  - per_rank_differs ${registered_algorithms})
mpix_add_test(fault.overflowing_tuning_file TARGET fault_injection PROCS 2 ARGS tuning_refused TIMEOUT 90
  ENVIRONMENT MPIX_TUNING_FILE=${tuning_data}/tuning_overflow.json PASS "fault_injection: ok")
# mpix_info reports a tuning file it cannot use instead of dying on it.
mpix_add_test(mpix_info.unusable_tuning_file TARGET mpix_info PROCS 1 TIMEOUT 60
  ENVIRONMENT MPIX_TUNING_FILE=${tuning_data}/tuning_overflow.json
  PASS "unusable: MPIX_TUNING_FILE: [^\n]*tuning_overflow.json: line 6: key 'sync_us': 1e999 is out of range")
