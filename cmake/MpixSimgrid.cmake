# A simulated build (MPIX_MPI=simgrid): the library on SimGrid's SMPI, which
# runs every rank of a job as an actor of one simulating process, on a
# modelled cluster (platforms/), with MPI_Wtime in simulated time.
#
# The compilers are smpicc and smpicxx (chosen before project()); they add
# SMPI's mpi.h and link each program as a shared object that smpirun loads
# once per rank, so every rank has its own copy of the program's globals,
# the library's among them: the library is linked in statically
# (mpixrma_internal), never as a shared library all ranks would share.
# What needs ranks to be processes of their own (the node channel, memfd
# segments, descriptor passing, single copies between processes) is refused
# at run time, with the reason (src/mpi_implementation.hpp). Built here:
# the library's archive, mpix_tune, and the correctness programs that run
# at scale (tests/sim). docs/simulation.md says what the model leaves out.
if(MPIX_SANITIZE)
  message(FATAL_ERROR "MPIX_MPI=simgrid: the simulator's actors switch stacks under AddressSanitizer's feet; "
                      "build the sanitizer suite with mpich or openmpi")
endif()
if(NOT CMAKE_CXX_COMPILER MATCHES "smpicxx$")
  message(FATAL_ERROR "MPIX_MPI=simgrid needs smpicxx as the C++ compiler, not ${CMAKE_CXX_COMPILER} "
                      "(configure a new build folder; Debian: apt-get install libsimgrid-dev)")
endif()
find_program(MPIX_SMPIRUN smpirun REQUIRED)
execute_process(COMMAND ${CMAKE_CXX_COMPILER} --version OUTPUT_VARIABLE _mpix_simgrid_version
                OUTPUT_STRIP_TRAILING_WHITESPACE)
set(MPIX_MPI_VENDOR "SimGrid SMPI")
message(STATUS "MPI: ${_mpix_simgrid_version} (simulated)")
# Each rank's copy of the program must hold its own statics. GCC gives
# the statics of inline functions and of templates STB_GNU_UNIQUE binding,
# which the dynamic linker makes one object in the whole process, however
# many copies are loaded: every rank would share them (the tournament's
# clock of exchanges, the registry of live handles). Ordinary binding keeps
# them per copy.
add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-fno-gnu-unique>)
# The compilers bring MPI: the targets the rest of the build links are empty.
add_library(MPI::MPI_C INTERFACE IMPORTED)
add_library(MPI::MPI_CXX INTERFACE IMPORTED)
set(MPIX_MPI_IS_OPEN_MPI FALSE)
set(MPIEXEC_EXECUTABLE ${MPIX_SMPIRUN})

# The selector's built-in parameters: MPICH's file, the development
# machine's measurements, as the prior of a simulated platform (SMPI runs
# MPICH's collective algorithms; auto's tournament times the simulated
# iterations themselves), marked as such so that the library accepts it as
# this MPI's and a reader knows what it is. One file, not a copy of it.
set(MPIX_TUNING_MPI mpich)
function(mpix_simulated_tuning json_var)
  if(CMAKE_VERSION VERSION_LESS 3.19)
    message(FATAL_ERROR "MPIX_MPI=simgrid needs CMake 3.19 (string(JSON)) for its built-in tuning")
  endif()
  set(json "${${json_var}}")
  string(JSON measured_with GET "${json}" mpi)
  # As mpi_implementation::name() says it: "SimGrid 3.32 SMPI".
  string(REGEX MATCH "[0-9]+\\.[0-9]+" simgrid_version "${_mpix_simgrid_version}")
  string(JSON json SET "${json}" mpi "\"SimGrid ${simgrid_version} SMPI\"")
  string(JSON json SET "${json}" source
         "\"the prior of a simulated build: ${measured_with}'s built-in parameters (selector/tuning_defaults_mpich.json) standing in for the simulated platform\"")
  set(${json_var} "${json}" PARENT_SCOPE)
endfunction()
