# Tests of the Python package, included by tests/CMakeLists.txt in its scope.

# The Python package, installed, under mpiexec at 2 and 3 ranks: every
# family against mpi4py's own calls (tests/python/test_mpixrma.py).
if(TARGET _mpixrma)
  foreach(n 2 3)
    mpix_add_test(python.pytest.${n}ranks
      COMMAND ${CMAKE_COMMAND} -E env MPIEXEC=${MPIEXEC_EXECUTABLE} "MPIEXEC_PREFLAGS=${preflags}"
              PYTHON=${Python3_EXECUTABLE} bash ${CMAKE_CURRENT_SOURCE_DIR}/python/run.sh ${PROJECT_BINARY_DIR} ${n}
      PASS "[0-9]+ passed" FAIL "[0-9]+ failed|[0-9]+ error")
  endforeach()
else()
  # Listed as skipped, with the reason, rather than missing without a word.
  mpix_add_test(python.pytest COMMAND ${CMAKE_COMMAND} -E echo "python suites not built: ${MPIX_PYTHON_ABSENT}"
    SKIP "python suites not built")
endif()
