# Tests of unit tests, included by tests/CMakeLists.txt in its scope.

# Pure unit tests: no MPI_Init, no mpiexec.
add_executable(unit_tests unit/unit_calibration.cpp unit/unit_channel_geometry.cpp unit/unit_direct_copy.cpp unit/unit_config.cpp unit/unit_registry.cpp unit/unit_resource_registry.cpp
  unit/unit_admission.cpp unit/unit_ordered_path_choice.cpp unit/unit_pattern_lives.cpp unit/unit_recent_calls.cpp unit/unit_selector.cpp unit/unit_staging_choice.cpp unit/unit_tournament.cpp unit/unit_tuning_file.cpp
  ${PROJECT_SOURCE_DIR}/intercept/recent_calls.cpp)
target_link_libraries(unit_tests PRIVATE mpixrma_internal GTest::gtest_main)
target_include_directories(unit_tests PRIVATE ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/generated)
target_compile_definitions(unit_tests PRIVATE MPIX_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
mpix_add_test(unit COMMAND $<TARGET_FILE:unit_tests> ARGS --gtest_filter=-DirectCopy.*)
# CMA into this process: skipped, as a skip, where the kernel refuses it.
mpix_add_test(unit.direct_copy COMMAND $<TARGET_FILE:unit_tests> ARGS --gtest_filter=DirectCopy.*
  SKIP "\\[  SKIPPED \\]")
