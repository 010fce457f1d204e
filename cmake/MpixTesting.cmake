# mpix_add_mpi_test(<name> SOURCES ... [RANKS 2 3 4] [VARIANT <suffix> ENVIRONMENT VAR=value ...])
# Builds one GoogleTest binary with the MPI-aware main and registers it with
# CTest once per rank count, as <name>.<n>ranks (or <name>.<suffix>.<n>ranks
# for a VARIANT run under extra environment variables).
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
    # LSan must not report MPICH/UCX/hwloc internals, suppressed by library
    # name; hwloc allocates from plugins it unloads again, so only a full
    # unwind reaches the libhwloc frame that names them.
    set_tests_properties(${test}.${n}ranks PROPERTIES
      TIMEOUT 300
      PROCESSORS ${n}
      ENVIRONMENT "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/lsan.supp;ASAN_OPTIONS=fast_unwind_on_malloc=0;${T_ENVIRONMENT}")
  endforeach()
endfunction()
