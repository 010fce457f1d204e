# Tests of the node transport: refused ptrace, forged descriptors, the switch,
# descriptor limits, included by tests/CMakeLists.txt in its scope.

# Ranks that refuse each other ptrace access for real (non-dumpable, an
# unprivileged user): auto still runs the node channel, with MPI's data.
add_executable(nondumpable_channel node/nondumpable_channel.c)
target_link_libraries(nondumpable_channel PRIVATE mpixrma)
# LeakSanitizer's tracer cannot attach to a non-dumpable process.
set(unprivileged WRAPPER bash ${CMAKE_CURRENT_SOURCE_DIR}/node/run_unprivileged.sh TIMEOUT 120 NO_LEAK_CHECK
  TARGET nondumpable_channel FAIL "WRONG")
mpix_add_test(nondumpable_channel RANKS 2 3 ${unprivileged} PASS "nondumpable_channel: ok")
# Two emulated nodes on one machine: the rows that put only off-node blocks
# into a window reach this machine's processes too.
mpix_add_test(nondumpable_channel.node_size_2 RANKS 3 ${unprivileged} ENVIRONMENT MPIX_NODE_SIZE=2 ARGS auto
  PASS "nondumpable_channel: ok")
# channel_cma where the kernel refuses CMA: its large heap blocks fall back
# to staging, with MPI's data.
mpix_add_test(nondumpable_channel.channel_cma RANKS 2 ${unprivileged} ARGS channel_cma
  PASS "nondumpable_channel: ok \\(ran channel_cma\\)")
# The first row that puts every block into a window, forced where CMA is
# refused: it runs on MPICH; Open MPI's windows would retry the refused CMA
# forever, so there the row is refused and the request falls back to auto.
mpix_add_test(nondumpable_channel.window RANKS 2 ${unprivileged} ARGS window PASS "nondumpable_channel: ok")
# MPIX windows there: made and working on MPICH; on Open MPI, whose
# windows would wait forever, refused at creation on every rank, except an
# allocated window on one node (load/store).
add_executable(nondumpable_window node/nondumpable_window.c)
target_link_libraries(nondumpable_window PRIVATE mpixrma)
set(nondumpable_window WRAPPER bash ${CMAKE_CURRENT_SOURCE_DIR}/node/run_unprivileged.sh TIMEOUT 120 NO_LEAK_CHECK
  TARGET nondumpable_window PASS "nondumpable_window: ok" FAIL "WRONG")
foreach(kind created allocated dynamic)
  mpix_add_test(nondumpable_window.${kind} RANKS 2 3 ${nondumpable_window} ARGS ${kind})
endforeach()
mpix_add_test(nondumpable_window.allocated.node_size_1 RANKS 2 ${nondumpable_window} ENVIRONMENT MPIX_NODE_SIZE=1
  ARGS allocated other_nodes)

# Another user attacks the node channel's descriptor passing during every
# set-up (node/forged_descriptors.c), with forged segments (memfd) and with
# a flood of lingering sockets whose close would wait on the attacker
# (linger): the kernel refuses every datagram, set-up never stalls, and each
# node-channel algorithm either works with MPI's data or fails on every
# rank.
add_executable(forged_descriptors node/forged_descriptors.c)
target_link_libraries(forged_descriptors PRIVATE mpixrma ${CMAKE_DL_LIBS})
mpix_registered_algorithms(channel_algorithms WITH node_channel)
foreach(attack memfd linger)
  mpix_add_test(forged_descriptors.${attack} TARGET forged_descriptors RANKS 2 3 ARGS ${attack} ${channel_algorithms}
    TIMEOUT 90 PASS "forged_descriptors: ok" FAIL "WRONG")
endforeach()
# A child forked by a rank, holding the library's own sending socket, sends
# in the rank's name first: it passes the address check and fails the
# credentials' pid (reported as dropped); the peers fall back for it.
mpix_add_test(forged_descriptors.inherited TARGET forged_descriptors RANKS 2 3 ARGS inherited ${channel_algorithms}
  TIMEOUT 90 FAIL "WRONG"
  PASS "dropped [0-9]+ forged descriptor datagram.*forged_descriptors: ok|forged_descriptors: ok.*dropped [0-9]+ forged")

# Live node-channel requests beyond the limit on open files: 1000 under 256
# at 2 ranks; at 3 (oversubscribed, where each creation costs scheduler
# slices) 150 under 64.
# MPIX_CHANNEL=off (docs/security.md): auto and every algorithm of every
# family, each forced, run without mapping one node-channel segment (those
# that need the channel are refused, naming the switch), and the data is
# MPI's; the control, without the switch, sees segments. The drop-in's
# tests of it are dropin.channel_off and dropin.channel_segments.
add_executable(channel_off node/channel_off.c)
target_link_libraries(channel_off PRIVATE mpixrma)
mpix_add_test(channel_off TARGET channel_off RANKS 2 ENVIRONMENT MPIX_CHANNEL=off MPIX_FALLBACK=error ARGS none
  PASS "channel_off: ok" FAIL "WRONG")
mpix_add_test(channel_off.control TARGET channel_off RANKS 2 ENVIRONMENT MPIX_FALLBACK=error ARGS some
  PASS "channel_off: ok \\([0-9]+ requests, [1-9][0-9]* segments seen\\)" FAIL "WRONG")

add_executable(many_channel_requests node/many_channel_requests.c)
target_link_libraries(many_channel_requests PRIVATE mpixrma)
foreach(case "2;1000;256" "3;150;64")
  list(GET case 0 n)
  list(GET case 1 requests)
  list(GET case 2 limit)
  mpix_add_test(many_channel_requests TARGET many_channel_requests RANKS ${n} ARGS ${requests}
    WRAPPER bash -c "ulimit -n ${limit} && exec \"$@\"" _
    PASS "many_channel_requests: ok \\(${requests} live requests, fd limit ${limit}\\)")
endforeach()
