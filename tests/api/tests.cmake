# Tests of the communicator and the C++ interface, included by
# tests/CMakeLists.txt in its scope.

mpix_add_mpi_test(comm SOURCES api/test_comm.cpp)
mpix_add_test(comm.node_size_2 TARGET comm RANKS 3 4 ENVIRONMENT MPIX_NODE_SIZE=2)

# The C++ interface, warnings as errors: the header must compile cleanly.
mpix_add_mpi_test(cpp_api SOURCES api/test_cpp_api.cpp live_resources.cpp)
target_compile_options(cpp_api PRIVATE -Wall -Wextra -Wpedantic -Werror)
