# The environment every MPI test runs under. LSan must not report
# MPICH/UCX/hwloc internals, suppressed by library name; hwloc allocates from
# plugins it unloads again, so only a full unwind reaches the libhwloc frame
# that names them. A job whose ranks leave without MPI_Finalize leaves MPI's
# memory behind: those tests use MPIX_TEST_ENV_NO_LEAK_CHECK.
set(MPIX_TEST_ENV
  "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/lsan.supp;ASAN_OPTIONS=fast_unwind_on_malloc=0")
set(MPIX_TEST_ENV_NO_LEAK_CHECK
  "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/lsan.supp;ASAN_OPTIONS=detect_leaks=0")

# mpix_registered_algorithms(<out> [WITH capability...] [WITHOUT capability...])
# The registered Alltoallv algorithms (collectives/alltoallv/registry.def, in
# its order) that have every capability after WITH and none after WITHOUT.
# Tests choose algorithms by capability, never by name.
function(mpix_registered_algorithms out)
  cmake_parse_arguments(R "" "" "WITH;WITHOUT" ${ARGN})
  file(STRINGS ${PROJECT_SOURCE_DIR}/collectives/alltoallv/registry.def rows REGEX "^MPIX_ALLTOALLV_ALGORITHM\\(")
  set(chosen "")
  foreach(row IN LISTS rows)
    string(REGEX REPLACE "^MPIX_ALLTOALLV_ALGORITHM\\(([a-z_]+), *([a-z_ |]*)\\).*" "\\1;\\2" fields "${row}")
    list(GET fields 0 id)
    list(GET fields 1 capabilities)
    string(REGEX REPLACE "_$" "" name "${id}")  # auto_: `auto` is a C++ keyword
    string(REGEX REPLACE "[ |]+" ";" capabilities "${capabilities}")
    set(keep TRUE)
    foreach(c IN LISTS R_WITH)
      if(NOT c IN_LIST capabilities)
        set(keep FALSE)
      endif()
    endforeach()
    foreach(c IN LISTS R_WITHOUT)
      if(c IN_LIST capabilities)
        set(keep FALSE)
      endif()
    endforeach()
    if(keep)
      list(APPEND chosen ${name})
    endif()
  endforeach()
  set(${out} ${chosen} PARENT_SCOPE)
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
  mpix_register_mpi_test(${name} ${name} RANKS ${T_RANKS})
endfunction()

# mpix_register_mpi_test(<test-name> <target> [RANKS ...] [ENVIRONMENT ...])
function(mpix_register_mpi_test test target)
  cmake_parse_arguments(T "" "" "RANKS;ENVIRONMENT;ARGS" ${ARGN})
  if(NOT T_RANKS)
    set(T_RANKS 2 3 4)
  endif()
  foreach(n IN LISTS T_RANKS)
    add_test(NAME ${test}.${n}ranks
             COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${n} $<TARGET_FILE:${target}> ${T_ARGS})
    set_tests_properties(${test}.${n}ranks PROPERTIES
      TIMEOUT 300
      PROCESSORS ${n}
      ENVIRONMENT "${MPIX_TEST_ENV};${T_ENVIRONMENT}")
  endforeach()
endfunction()
