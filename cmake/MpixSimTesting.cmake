# mpix_sim_platform(<out_xml> <out_hosts> MACHINE m NODES n [RANKS_PER_NODE k])
# The platform of n nodes of machine m (platforms/m.json) and its hostfile,
# written into the build tree by platforms/make_platform.py at configure
# time.
function(mpix_sim_platform out_xml out_hosts)
  cmake_parse_arguments(P "" "MACHINE;NODES;RANKS_PER_NODE" "" ${ARGN})
  set(extra "")
  if(P_RANKS_PER_NODE)
    set(extra --ranks-per-node ${P_RANKS_PER_NODE})
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
    ${PROJECT_SOURCE_DIR}/platforms/${P_MACHINE}.json ${PROJECT_SOURCE_DIR}/platforms/make_platform.py)
  execute_process(COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/platforms/make_platform.py
                          ${P_MACHINE} ${P_NODES} ${PROJECT_BINARY_DIR}/platforms ${extra}
                  OUTPUT_VARIABLE paths OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "platforms/make_platform.py ${P_MACHINE} ${P_NODES} failed")
  endif()
  string(REPLACE "\n" ";" paths "${paths}")
  list(GET paths 0 xml)
  list(GET paths 1 hosts)
  set(${out_xml} ${xml} PARENT_SCOPE)
  set(${out_hosts} ${hosts} PARENT_SCOPE)
endfunction()

# The options every simulated job runs with (smpirun): the simulating
# machine's speed equal to the platform's, so computation counts as long as
# it took here; MPICH's collective algorithms (SMPI's own defaults post
# every message of a collective at once, which takes the simulator far
# longer), except MPI_Bcast's and MPI_Allreduce's, which set a
# communicator up for their node-aware algorithms at its first call: the
# MPI_Bcast set-up fails with MPI_ERR_TRUNCATE where ranks reach it at
# different calls, the MPI_Allreduce one costs a new communicator tens of
# its calls (docs/simulation.md); no per-call log lines.
set(MPIX_SMPIRUN_OPTIONS --cfg=smpi/host-speed:1Gf --cfg=smpi/coll-selector:mpich --cfg=smpi/bcast:binomial_tree
    --cfg=smpi/allreduce:rdb --log=root.thr:warning --log=xbt_cfg.thr:warning --log=smpi_config.thr:error)

# mpix_add_sim_test(<name> TARGET t MACHINE m NODES n [RANKS_PER_NODE k] [ARGS ...] [TIMEOUT s]
#                   [LABELS l...] [PASS regex] [FAIL regex])
# A test that runs t on every rank of n simulated nodes of machine m under
# smpirun, labelled sim (or the LABELS given), named
# <name>.<ranks>ranks.<n>x<k>. It passes when t ends with status 0 and
# prints no WRONG, nor what FAIL matches, and prints what PASS matches.
function(mpix_add_sim_test name)
  cmake_parse_arguments(T "" "TARGET;MACHINE;NODES;RANKS_PER_NODE;TIMEOUT;PASS;FAIL" "ARGS;ENVIRONMENT;LABELS"
                        ${ARGN})
  if(NOT T_LABELS)
    set(T_LABELS sim)
  endif()
  mpix_sim_platform(xml hosts MACHINE ${T_MACHINE} NODES ${T_NODES} RANKS_PER_NODE ${T_RANKS_PER_NODE})
  math(EXPR ranks "${T_NODES} * ${T_RANKS_PER_NODE}")
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  set(test ${name}.${ranks}ranks.${T_NODES}x${T_RANKS_PER_NODE})
  add_test(NAME ${test}
    COMMAND bash ${PROJECT_SOURCE_DIR}/tests/exit_status.sh 0
            ${MPIX_SMPIRUN} -platform ${xml} -hostfile ${hosts} ${MPIX_SMPIRUN_OPTIONS}
            $<TARGET_FILE:${T_TARGET}> ${T_ARGS})
  set(fail "WRONG;exit_status: FAILED")
  if(T_FAIL)
    list(APPEND fail "${T_FAIL}")
  endif()
  set_tests_properties(${test} PROPERTIES LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT}
    FAIL_REGULAR_EXPRESSION "${fail}" ENVIRONMENT "${T_ENVIRONMENT}")
  if(T_PASS)
    # ctest then ignores the exit status: exit_status.sh prints FAILED for it.
    set_tests_properties(${test} PROPERTIES PASS_REGULAR_EXPRESSION "${T_PASS}")
  endif()
endfunction()
