# The system's MPI (MPIX_MPI=mpich or openmpi): its compiler wrappers and
# launcher, pinned by name, and what differs between the two.
if(NOT MPI_C_COMPILER AND EXISTS /usr/bin/mpicc.${MPIX_MPI})
  set(MPI_C_COMPILER /usr/bin/mpicc.${MPIX_MPI})
  set(MPI_CXX_COMPILER /usr/bin/mpicxx.${MPIX_MPI})
  set(MPIEXEC_EXECUTABLE /usr/bin/mpiexec.${MPIX_MPI})
  if(EXISTS /usr/bin/mpif90.${MPIX_MPI})
    set(MPI_Fortran_COMPILER /usr/bin/mpif90.${MPIX_MPI})
  endif()
endif()
find_package(MPI 3.1 REQUIRED COMPONENTS C CXX)
# Fortran where the MPI has a Fortran compiler: the module `mpix`
# (bindings/fortran, where the MPI has mpi_f08) and the drop-in's Fortran
# tests.
include(CheckLanguage)
check_language(Fortran)
if(CMAKE_Fortran_COMPILER)
  enable_language(Fortran)
  find_package(MPI COMPONENTS Fortran)
endif()
# The MPI implementation the library is built with (from its mpi.h): what
# the package checks a consumer's MPI against, and the pkg-config module it
# requires.
include(CheckSymbolExists)
set(CMAKE_REQUIRED_LIBRARIES MPI::MPI_C)
check_symbol_exists(OMPI_MAJOR_VERSION mpi.h MPIX_MPI_IS_OPEN_MPI)
unset(CMAKE_REQUIRED_LIBRARIES)
if(MPIX_MPI_IS_OPEN_MPI)
  set(MPIX_MPI_VENDOR "Open MPI")
  set(PC_MPI_MODULE ompi-c)
  # ompi-c's flags in a C++ file would pull in the MPI-2 C++ bindings,
  # which ompi-c does not link: consumers of mpix.hpp need none of them.
  set(PC_MPI_CFLAGS -DOMPI_SKIP_MPICXX)
  # Tests and scripts launch more ranks than cores (correctness runs), and
  # CI runs as root: Open MPI's launcher refuses both unless told. It also
  # binds each rank to a core of its own choosing unless told not to, as
  # MPICH's Hydra does not: a launch keeps the CPU set it was started in
  # (taskset), and the library reads the binding it finds.
  set(MPIEXEC_PREFLAGS --oversubscribe --bind-to none)
  if(CMAKE_HOST_UNIX)
    execute_process(COMMAND id -u OUTPUT_VARIABLE _mpix_uid OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(_mpix_uid STREQUAL "0")
      list(APPEND MPIEXEC_PREFLAGS --allow-run-as-root)
    endif()
  endif()
else()
  set(MPIX_MPI_VENDOR "MPICH")
  set(PC_MPI_MODULE mpich)
endif()
if(NOT (MPIX_MPI STREQUAL "openmpi") STREQUAL (MPIX_MPI_IS_OPEN_MPI))
  message(FATAL_ERROR "MPIX_MPI = ${MPIX_MPI}, but the MPI found (${MPI_C_COMPILER}) is ${MPIX_MPI_VENDOR}")
endif()
