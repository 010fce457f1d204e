# The environment every MPI test runs under. LSan must not report
# MPICH/UCX/hwloc internals, suppressed by library name; hwloc allocates from
# plugins it unloads again, so only a full unwind reaches the libhwloc frame
# that names them. A job whose ranks leave without MPI_Finalize leaves MPI's
# memory behind: those tests use MPIX_TEST_ENV_NO_LEAK_CHECK.
# The cores of the machine the tests are configured on: a run of more
# ranks than these is oversubscribed.
cmake_host_system_information(RESULT MPIX_TEST_CORES QUERY NUMBER_OF_LOGICAL_CORES)
set(MPIX_TEST_ENV
  "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/lsan.supp;ASAN_OPTIONS=fast_unwind_on_malloc=0")
set(MPIX_TEST_ENV_NO_LEAK_CHECK
  "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/lsan.supp;ASAN_OPTIONS=detect_leaks=0")

include(${CMAKE_CURRENT_LIST_DIR}/MpixRegisteredAlgorithms.cmake)

# mpix_mpi_launch(<out> <ranks> [ENV_PER_RANK "VAR=value;..." ...] COMMAND <program> [args...])
# The launcher command line that runs <program> on <ranks> ranks of the MPI
# the project is built with. With ENV_PER_RANK (one list per rank, ";"
# inside an element written as ",", "-" for none), an MPMD launch gives each
# rank its own variables: rank r runs <program> with the r-th list set.
function(mpix_mpi_launch out ranks)
  cmake_parse_arguments(L "" "" "ENV_PER_RANK;COMMAND" ${ARGN})
  if(NOT L_ENV_PER_RANK)
    set(${out} ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${ranks} ${MPIEXEC_PREFLAGS} ${L_COMMAND} PARENT_SCOPE)
    return()
  endif()
  set(command ${MPIEXEC_EXECUTABLE} ${MPIEXEC_PREFLAGS})
  set(first TRUE)
  foreach(per_rank IN LISTS L_ENV_PER_RANK)
    if(NOT first)
      list(APPEND command :)
    endif()
    set(first FALSE)
    list(APPEND command ${MPIEXEC_NUMPROC_FLAG} 1)
    string(REPLACE "," ";" variables "${per_rank}")
    foreach(variable IN LISTS variables)
      if(variable MATCHES "^([A-Z_0-9]+)=(.*)$")
        if(MPIX_MPI_IS_OPEN_MPI)
          list(APPEND command -x ${variable})  # Open MPI: per app context
        else()
          list(APPEND command -env ${CMAKE_MATCH_1} ${CMAKE_MATCH_2})  # MPICH's Hydra
        endif()
      endif()
    endforeach()
    list(APPEND command ${L_COMMAND})
  endforeach()
  set(${out} ${command} PARENT_SCOPE)
endfunction()

# mpix_add_test(<name> ...): the one way a test is registered. It owns the
# MPI launch, the rank counts, the time limit and the environment (the
# sanitizer settings above plus ENVIRONMENT).
#   RANKS n...            one test per count, named <name>.<n>ranks
#   PROCS n               one test named <name>, on n ranks
#   (neither)             a test that is not an MPI job: COMMAND runs as is
#   TARGET t | COMMAND c  what runs (TARGET: the built program t)
#   ARGS ...              its arguments
#   WRAPPER ...           a command the launch runs under (it takes the
#                         launcher's command line as its last arguments)
#   ENV_PER_RANK ...      an MPMD launch, see mpix_mpi_launch
#   ENVIRONMENT ...       variables for every rank
#   NO_LEAK_CHECK         the job may end without MPI_Finalize: no leak check
#   TIMEOUT s             300 unless given
#   PASS re / FAIL re     the output must / must not match; with PASS the
#                         command must also end with status EXIT
#   EXIT n                the status a PASS test ends with (0 unless given;
#                         abort: a job that must end through MPI's abort,
#                         not a crash; tests/exit_status.sh); any other, a
#                         signal included, fails it
#   SKIP re               output that marks the test skipped
#   FIXTURES_SETUP f / FIXTURES_REQUIRED f
function(mpix_add_test name)
  cmake_parse_arguments(T "NO_LEAK_CHECK" "PROCS;TARGET;TIMEOUT;PASS;FAIL;SKIP;EXIT;FIXTURES_SETUP;FIXTURES_REQUIRED"
                        "RANKS;COMMAND;ARGS;WRAPPER;ENV_PER_RANK;ENVIRONMENT" ${ARGN})
  # A semicolon in a one-value argument (a PASS expression that says "; ")
  # splits it, and the part after it would be dropped unseen.
  if(T_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "mpix_add_test(${name}): unexpected arguments '${T_UNPARSED_ARGUMENTS}' "
                        "(a semicolon in PASS, FAIL or SKIP? write it as '.')")
  endif()
  if(T_TARGET)
    set(program $<TARGET_FILE:${T_TARGET}>)
  else()
    set(program ${T_COMMAND})
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  # CTest ignores the exit status of a test with an output pattern: the
  # pattern may be printed before a crash, or by a job that should have
  # aborted. One wrapper checks the status of all of them.
  set(status_check "")
  if(DEFINED T_PASS)
    if(NOT DEFINED T_EXIT)
      set(T_EXIT 0)
    endif()
    set(status_check bash ${PROJECT_SOURCE_DIR}/tests/exit_status.sh ${T_EXIT})
    list(APPEND T_FAIL "exit_status: FAILED")
  elseif(DEFINED T_EXIT)
    message(FATAL_ERROR "mpix_add_test(${name}): EXIT needs PASS (CTest checks the status of other tests)")
  endif()
  set(environment "${MPIX_TEST_ENV}")
  if(T_NO_LEAK_CHECK)
    set(environment "${MPIX_TEST_ENV_NO_LEAK_CHECK}")
  endif()
  list(APPEND environment ${T_ENVIRONMENT})
  if(T_PROCS)
    set(runs "${T_PROCS}")
  elseif(T_RANKS)
    set(runs "${T_RANKS}")
  else()
    set(runs "0")
  endif()
  foreach(n IN LISTS runs)
    set(test ${name})
    if(T_RANKS)
      set(test ${name}.${n}ranks)
    endif()
    if(n EQUAL 0)
      set(command ${program} ${T_ARGS})
    else()
      mpix_mpi_launch(command ${n} ENV_PER_RANK ${T_ENV_PER_RANK} COMMAND ${program} ${T_ARGS})
    endif()
    add_test(NAME ${test} COMMAND ${status_check} ${T_WRAPPER} ${command})
    set_tests_properties(${test} PROPERTIES TIMEOUT ${T_TIMEOUT} ENVIRONMENT "${environment}")
    if(n GREATER 0)
      set_tests_properties(${test} PROPERTIES PROCESSORS ${n})
    endif()
    # The same registration at more ranks than the fewest it runs at: an
    # oversubscribed repeat, labelled repeat_ranks (and above 3 ranks also
    # repeat_ranks_above_3); and any run of more ranks than this machine
    # has cores, labelled oversubscribed. scripts/run_tests.sh says which
    # legs of CI leave which out.
    set(labels "")
    if(T_RANKS)
      list(GET T_RANKS 0 fewest)
      foreach(count IN LISTS T_RANKS)
        if(count LESS fewest)
          set(fewest ${count})
        endif()
      endforeach()
      if(n GREATER fewest)
        list(APPEND labels repeat_ranks)
        if(n GREATER 3)
          list(APPEND labels repeat_ranks_above_3)
        endif()
      endif()
    endif()
    if(n GREATER MPIX_TEST_CORES)
      list(APPEND labels oversubscribed)
    endif()
    if(labels)
      set_tests_properties(${test} PROPERTIES LABELS "${labels}")
    endif()
    foreach(property PASS:PASS_REGULAR_EXPRESSION FAIL:FAIL_REGULAR_EXPRESSION SKIP:SKIP_REGULAR_EXPRESSION
                     FIXTURES_SETUP:FIXTURES_SETUP
                     FIXTURES_REQUIRED:FIXTURES_REQUIRED)
      string(REPLACE ":" ";" pair ${property})
      list(GET pair 0 key)
      list(GET pair 1 ctest_property)
      if(DEFINED T_${key})
        set_tests_properties(${test} PROPERTIES ${ctest_property} "${T_${key}}")
      endif()
    endforeach()
  endforeach()
endfunction()

# mpix_add_mpi_test(<name> SOURCES ... [RANKS 2 3 4])
# Builds one GoogleTest binary with the MPI-aware main and registers it with
# CTest once per rank count, as <name>.<n>ranks.
function(mpix_add_mpi_test name)
  cmake_parse_arguments(T "" "" "SOURCES;RANKS" ${ARGN})
  if(NOT T_RANKS)
    set(T_RANKS 2 3 4)
  endif()
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE mpix_test_main)
  mpix_add_test(${name} TARGET ${name} RANKS ${T_RANKS})
endfunction()
