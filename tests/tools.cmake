# Tests of the benchmarks' and tools' programs, included by
# tests/CMakeLists.txt in its scope.

# Benchmark 2's reader and halo exchange: every generated matrix (all fields
# and storages), the data of every competitor validated (exit code).
if(TARGET bench_spmv_halo)
  file(GLOB generated_matrices ${PROJECT_SOURCE_DIR}/matrices/*.mtx)
  mpix_add_test(bench_spmv_halo TARGET bench_spmv_halo RANKS 2 3
    ARGS --iterations 3 --repeats 1 ${generated_matrices})
endif()

# The scaling benchmark's stencil exchange delivers the right data for every
# registered neighbourhood algorithm (exit code); its bytes and init times
# are read at 4..32 ranks by hand (scripts/benchmark.sh neighbor_scaling).
if(TARGET bench_neighbor_scaling)
  mpix_add_test(bench_neighbor_scaling TARGET bench_neighbor_scaling RANKS 4 ARGS --repeats 1 FAIL "WRONG")
endif()

# The copy-floor probe's staged and single-copy exchanges, and auto beside
# them, deliver every iteration's data (checked each iteration).
if(TARGET bench_copy_floor)
  mpix_add_test(bench_copy_floor TARGET bench_copy_floor RANKS 2 ARGS --sizes 8,100,4096 --repeats 1
    PASS "bench_copy_floor: data ok")
endif()

# The ring benchmark's staged floor (no library code, two buffers in turn)
# delivers the ring's data (checked after each timed block, exit code).
if(TARGET bench_neighbor)
  mpix_add_test(bench_neighbor_staged TARGET bench_neighbor RANKS 2 ARGS --bytes 8,4096 --algorithms mpi,staged
    --repeats 1 FAIL "WRONG")
endif()

# Two and three auto requests in one loop, and each alone: every
# iteration's data is checked (exit code), every set, at 2 and 3 ranks.
if(TARGET bench_two_requests)
  mpix_add_test(bench_two_requests TARGET bench_two_requests RANKS 2 3 ARGS --seconds 0.3
    --pair alltoallv+neighbor,alltoallv+alltoallv,alltoallv+neighbor+alltoallv
    PASS "two_requests alltoallv\\+neighbor\\+alltoallv share" FAIL "WRONG")
endif()

# The handle benchmark's puts land where they should with thousands of
# handles alive (exit code), at every rank count.
if(TARGET bench_handles)
  foreach(n 2 3 4)
    mpix_add_test(bench_handles TARGET bench_handles RANKS ${n}
      ARGS ${CMAKE_CURRENT_BINARY_DIR}/bench_handles.${n}.csv 1 2000)
  endforeach()
endif()

# The tools' command lines: help and version end the job normally, bad
# arguments are reported before any measuring, parsable output has keys.
# Arguments after the program's: its arguments, then EXIT n where the
# command line is an error (the tools end those with status 2).
function(mpix_add_tool_test name pass ranks program)
  cmake_parse_arguments(X "" "EXIT" "" ${ARGN})
  if(NOT DEFINED X_EXIT)
    set(X_EXIT 0)
  endif()
  mpix_add_test(tool.${name} COMMAND ${program} PROCS ${ranks} ARGS ${X_UNPARSED_ARGUMENTS} TIMEOUT 60
    PASS "${pass}" EXIT ${X_EXIT})
endfunction()
mpix_add_tool_test(mpix_info_help "Usage: mpix_info \\[OPTIONS\\].*--parsable" 1 $<TARGET_FILE:mpix_info> --help)
mpix_add_tool_test(mpix_info_version "mpix-rma [0-9]+\\.[0-9]+\\.[0-9]+ \\(built with ${MPIX_MPI_VENDOR}" 1 $<TARGET_FILE:mpix_info> --version)
# Every family of collectives/families.def, each with its auto.
set(listed_families "")
foreach(family IN LISTS MPIX_FAMILIES)
  string(APPEND listed_families "family=${family}\n${family}.algorithm=auto\n.*")
endforeach()
mpix_add_tool_test(mpix_info_parsable
  "layout.emulated=0\n.*variable.MPIX_VERBOSE.set=0\n.*${listed_families}tuning.file=built-in" 1
  $<TARGET_FILE:mpix_info> --parsable)
# Waiting adapts to oversubscription: 2 ranks pinned to one core do not
# spin (MPIX_CHANNEL_SPIN=auto), and a set value still wins.
mpix_add_test(tool.mpix_info_oversubscribed TARGET mpix_info PROCS 2 ARGS --parsable WRAPPER taskset -c 0 TIMEOUT 60
  PASS "layout.machine_ranks=2\nlayout.machine_cores=1\nlayout.oversubscribed=1\nchannel.spin_polls=0\n")
mpix_add_test(tool.mpix_info_spin_set TARGET mpix_info PROCS 2 ARGS --parsable WRAPPER taskset -c 0 TIMEOUT 60
  ENVIRONMENT MPIX_CHANNEL_SPIN=100 PASS "layout.oversubscribed=1\nchannel.spin_polls=100\n")
mpix_add_tool_test(mpix_info_bad_option "The following argument was not expected: --bogus" 1 $<TARGET_FILE:mpix_info>
  --bogus EXIT 2)
mpix_add_tool_test(mpix_tune_help "Usage: mpix_tune \\[OPTIONS\\].*--merge" 2 $<TARGET_FILE:mpix_tune> --help)
mpix_add_tool_test(mpix_tune_bad_sizes "--sizes: Value abc not in range 1 to" 2 $<TARGET_FILE:mpix_tune> --sizes abc
  EXIT 2)
mpix_add_tool_test(mpix_tune_decreasing_sizes "mpix_tune: --sizes must be increasing" 2 $<TARGET_FILE:mpix_tune>
  --sizes 64,8 EXIT 2)
# The benchmarks' command lines: values checked against what is accepted
# (the registry's names among them) before anything runs.
if(TARGET bench_alltoallv)
  mpix_add_tool_test(bench_alltoallv_bad_loop "--loop: bogus not in \\{application,exchange,barrier,first_calls\\}" 2
    $<TARGET_FILE:bench_alltoallv> --loop bogus EXIT 2)
  mpix_add_tool_test(bench_alltoallv_unknown_algorithm "--algorithms: no_such_algorithm not in \\{[a-z_,]+memcpy\\}" 2
    $<TARGET_FILE:bench_alltoallv> --algorithms no_such_algorithm EXIT 2)
  mpix_add_tool_test(bench_alltoallv_help "Usage: bench_alltoallv \\[OPTIONS\\].*--sizes.*--iterations" 1
    $<TARGET_FILE:bench_alltoallv> --help)
  # The Alltoall family's requests timed (every registered algorithm, each
  # validated): exit status 0 only if every one delivered the data.
  mpix_add_tool_test(bench_alltoallv_alltoall "application +heap +4096 +native +[0-9]+ .* ok" 2
    $<TARGET_FILE:bench_alltoallv> --family alltoall --sizes 64,4096 --repeats 1 --loop application --memory heap
    --iterations 20)
  # The first_calls loop: OSU's 250 calls per size, all timed, no warm-up.
  mpix_add_tool_test(bench_alltoallv_first_calls "first_calls +heap +4096 +auto +250 .* ok" 2
    $<TARGET_FILE:bench_alltoallv> --sizes 4096 --repeats 1 --loop first_calls --memory heap --algorithms native,auto)
endif()
# The drop-in's plain programs parse by hand (they link nothing but MPI):
# help ends the job, an option without its value ends every rank with an
# error (not ignored, and no rank left waiting).
if(TARGET bench_dropin)
  mpix_add_tool_test(bench_dropin_help "usage: bench_dropin .*--sizes.*defaults: --sizes 8," 1
    $<TARGET_FILE:bench_dropin> --help)
  mpix_add_tool_test(bench_dropin_alltoall "bench_dropin: data ok" 2
    $<TARGET_FILE:bench_dropin> --collective alltoall --sizes 8,4096 --repeats 1)
  # The sweep loop over a ring of neighbourhood calls, served: its data is
  # checked, and the report shows calls of the ring served. The served
  # pattern runs three sizes' worth of calls (750): where ranks outnumber
  # cores, agreements are slow and spaced out, and a pattern of 250 calls
  # may end before one finds it.
  mpix_add_test(tool.bench_dropin_neighbor_sweep TARGET bench_dropin RANKS 3
    ARGS --collective neighbor --loop sweep --sizes 8,4096,4096,4096
    ENVIRONMENT "LD_PRELOAD=${dropin_preload}" MPIX_VERBOSE=1 MPIX_INTERCEPT_MIN_BYTES=1024 ${dropin_admit_at_once}
      ${dropin_agreed_path}
    PASS "MPI_Neighbor_alltoallv: [0-9]+ calls, [1-9][0-9]* served.*bench_dropin: data ok|bench_dropin: data ok.*MPI_Neighbor_alltoallv: [0-9]+ calls, [1-9][0-9]* served"
    FAIL "WRONG")
  # MPI_Alltoall's blocks are one size on every rank: below the serving
  # threshold the ranks agree once (that their settings are alike), then
  # never again (no agreement traffic among MPI's own calls), and the data
  # stays MPI's.
  mpix_add_test(tool.bench_dropin_alltoall_small TARGET bench_dropin RANKS 2
    ARGS --collective alltoall --loop exchange --sizes 8,4096 --repeats 1
    ENVIRONMENT "LD_PRELOAD=${dropin_preload}" MPIX_VERBOSE=1 MPIX_INTERCEPT_MIN_BYTES=8192
    PASS "MPI_Alltoall: [1-9][0-9]* calls, 0 served, 0 patterns [^;]*, 1 agreements \\("
    FAIL "([02-9]|[1-9][0-9]+) agreements \\(|WRONG")
  # Ranks whose thresholds differ (one would pass a 4 KiB MPI_Alltoall
  # straight through, the other agree on it) still meet in the first
  # agreement, which sends every call of both to MPI: no hang.
  mpix_add_test(tool.bench_dropin_alltoall_thresholds_differ TARGET bench_dropin PROCS 2
    ENV_PER_RANK MPIX_INTERCEPT_MIN_BYTES=1024 - TIMEOUT 45
    ARGS --collective alltoall --loop exchange --sizes 4096 --repeats 1
    ENVIRONMENT "LD_PRELOAD=${dropin_preload}" MPIX_VERBOSE=1
    # (the warning on stderr and the result on stdout arrive in either order)
    PASS "different MPIX_INTERCEPT\\* settings.*bench_dropin: data ok|bench_dropin: data ok.*different MPIX_INTERCEPT\\* settings"
    FAIL "[1-9][0-9]* served|WRONG")
  # Buffers from MPI_Alloc_mem, served: the data of every call is checked.
  # Both sizes are served from their first calls (MPIX_INTERCEPT_MIN_BYTES
  # below them): otherwise the smaller size passes through, with agreements
  # spaced by measured prices, and on a busy machine the larger one could
  # run out before its next agreement.
  mpix_add_test(tool.bench_dropin_mpi_memory TARGET bench_dropin RANKS 2
    ARGS --memory mpi --loop application --sizes 4096,65536 --repeats 1
    ENVIRONMENT "LD_PRELOAD=${dropin_preload}" MPIX_VERBOSE=1 MPIX_INTERCEPT_MIN_BYTES=1024 ${dropin_admit_at_once}
      ${dropin_agreed_path}
    PASS "MPI_Alltoallv: [0-9]+ calls, [1-9][0-9]* served.*bench_dropin: data ok|bench_dropin: data ok.*MPI_Alltoallv: [0-9]+ calls, [1-9][0-9]* served"
    FAIL "WRONG")
  mpix_add_tool_test(bench_dropin_missing_value "bench_dropin: option needs a value: --repeats" 2
    $<TARGET_FILE:bench_dropin> --sizes 8 --repeats EXIT 2)
endif()
mpix_add_tool_test(mpix_tune_unwritable_output "cannot write --output /nonexistent/dir/t.json" 2
  $<TARGET_FILE:mpix_tune> --output /nonexistent/dir/t.json EXIT 2)
