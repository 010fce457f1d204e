# Tests of the installed package, used from outside the build, included by
# tests/CMakeLists.txt in its scope.

# Separate C and C++-only projects find the installed package (in a prefix
# outside the build tree) and run a persistent Alltoallv, through CMake and
# through pkg-config; the installed mpix_info runs without LD_LIBRARY_PATH.
set(consumer_flags "")
if(MPIX_SANITIZE)
  set(consumer_flags "-fsanitize=address,undefined")
endif()
# Where the other MPI is installed too, a consumer that finds it must be
# told at configure time.
set(other_mpi_cc "")
foreach(other mpich openmpi)
  if(NOT other STREQUAL MPIX_MPI AND EXISTS /usr/bin/mpicc.${other})
    set(other_mpi_cc /usr/bin/mpicc.${other})
  endif()
endforeach()
set(other_mpi_refused "")
if(other_mpi_cc)
  set(other_mpi_refused "mpixrma was built with ${MPIX_MPI_VENDOR}, but this project found.*")
endif()
list(JOIN MPIEXEC_PREFLAGS " " preflags)
set(fortran_consumer "")
if(TARGET mpixrma_fortran)
  set(fortran_consumer ".*persistent_exchanges: ok at 2 ranks.*persistent_exchanges: ok at 3 ranks\
.*MPI linked first:.*persistent_exchanges: ok at 2 ranks")
endif()
mpix_add_test(install_consumer
  COMMAND ${CMAKE_COMMAND} -E env MPIEXEC=${MPIEXEC_EXECUTABLE} "MPIEXEC_PREFLAGS=${preflags}"
          "SANITIZE_FLAGS=${consumer_flags}" OTHER_MPI_C_COMPILER=${other_mpi_cc}
          bash ${CMAKE_CURRENT_SOURCE_DIR}/install_consumer/run.sh ${PROJECT_BINARY_DIR}
  PASS "${other_mpi_refused}consumer \\(C\\): ok.*consumer \\(C\\+\\+\\): ok.*consumer \\(C\\): ok.*consumer \\(C\\+\\+\\): ok\
.*consumer_mpi_first_c:.consumer \\(C\\): ok.*consumer_mpi_first_cxx:.consumer \\(C\\+\\+\\): ok${fortran_consumer}"
  FAIL "WRONG")
