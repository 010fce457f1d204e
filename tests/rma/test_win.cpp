// MPIX windows: data correctness of put/get/accumulate on every window kind
// under every synchronization mode, for transfers small enough for MPI RMA
// and large enough for CMA. CMake registers the suite twice: on one real node
// (direct paths) and with MPIX_NODE_SIZE=1 (every target "off-node": MPI RMA).
#include <cstring>
#include <tuple>
#include <vector>

#include "node/direct_copy.hpp"
#include "rma/window_config.hpp"
#include "src/library.hpp"
#include "tests/rma/win_fixture.hpp"

using namespace mpix_test;

namespace {

enum class Sync { fence, pscw, lock, lock_all };

const char* sync_name(Sync s) {
  switch (s) {
    case Sync::fence: return "fence";
    case Sync::pscw: return "pscw";
    case Sync::lock: return "lock";
    case Sync::lock_all: return "lock_all";
  }
  return "?";
}

int value(int iteration, int origin, int target, int i) { return iteration * 1000003 + origin * 10007 + target * 101 + i; }

// Runs body(target) for every target inside one epoch of kind sync, and
// returns when the data is visible at every target.
template <class Body>
void epoch(Sync sync, MPIX_Win* win, Body&& body) {
  const int p = world_size();
  MPI_Group group;
  MPI_Comm_group(MPI_COMM_WORLD, &group);
  switch (sync) {
    case Sync::fence:
      EXPECT_EQ(MPIX_Win_fence(0, win), MPI_SUCCESS);
      for (int t = 0; t < p; ++t) body(t);
      EXPECT_EQ(MPIX_Win_fence(0, win), MPI_SUCCESS);
      break;
    case Sync::pscw:
      EXPECT_EQ(MPIX_Win_post(group, 0, win), MPI_SUCCESS);
      EXPECT_EQ(MPIX_Win_start(group, 0, win), MPI_SUCCESS);
      for (int t = 0; t < p; ++t) body(t);
      EXPECT_EQ(MPIX_Win_complete(win), MPI_SUCCESS);
      EXPECT_EQ(MPIX_Win_wait(win), MPI_SUCCESS);
      break;
    case Sync::lock:
      for (int t = 0; t < p; ++t) {
        EXPECT_EQ(MPIX_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win), MPI_SUCCESS);
        body(t);
        EXPECT_EQ(MPIX_Win_unlock(t, win), MPI_SUCCESS);
      }
      MPI_Barrier(MPI_COMM_WORLD);
      EXPECT_EQ(MPIX_Win_sync(win), MPI_SUCCESS);
      break;
    case Sync::lock_all:
      EXPECT_EQ(MPIX_Win_lock_all(0, win), MPI_SUCCESS);
      for (int t = 0; t < p; ++t) body(t);
      EXPECT_EQ(MPIX_Win_flush_all(win), MPI_SUCCESS);
      EXPECT_EQ(MPIX_Win_unlock_all(win), MPI_SUCCESS);
      MPI_Barrier(MPI_COMM_WORLD);
      EXPECT_EQ(MPIX_Win_sync(win), MPI_SUCCESS);
      break;
  }
  MPI_Group_free(&group);
}

using Params = std::tuple<WinKind, Sync, int>;  // kind, synchronization, ints per block
class WinData : public MpiTest, public ::testing::WithParamInterface<Params> {};

}  // namespace

TEST_P(WinData, PutGetAccumulateReachEveryTarget) {
  const auto [kind, sync, block] = GetParam();
  const int p = world_size(), me = world_rank();
  TestWindow w(kind, block * p + 1);  // a block per origin, then a counter
  ASSERT_EQ(w.status(), MPI_SUCCESS) << error_message(w.status());
  std::vector<int> out(static_cast<std::size_t>(block) * p), in(out.size(), -1);
  const int one = 1;
  for (int it = 0; it < 3; ++it) {
    for (int t = 0; t < p; ++t)
      for (int i = 0; i < block; ++i) out[t * block + i] = value(it, me, t, i);
    for (int i = 0; i < w.ints(); ++i) w.memory()[i] = -7;
    MPI_Barrier(MPI_COMM_WORLD);
    epoch(sync, w.win(), [&](int t) {
      EXPECT_EQ(MPIX_Put(&out[t * block], block, MPI_INT, t, w.disp(t, me * block), block, MPI_INT, w.win()),
                MPI_SUCCESS);
      EXPECT_EQ(MPIX_Accumulate(&one, 1, MPI_INT, t, w.disp(t, block * p), 1, MPI_INT, MPI_SUM, w.win()),
                MPI_SUCCESS);
    });
    int wrong = 0, first = -1;
    for (int s = 0; s < p; ++s)
      for (int i = 0; i < block; ++i)
        if (w.load(s * block + i) != value(it, s, me, i) && wrong++ == 0) first = s * block + i;
    EXPECT_EQ(wrong, 0) << "iteration " << it << ": first wrong element " << first << " holds "
                        << (first >= 0 ? w.load(first) : 0);
    EXPECT_EQ(w.load(block * p), -7 + p) << "accumulated counter";

    // Each rank reads back what it wrote into every target.
    std::fill(in.begin(), in.end(), -1);
    epoch(sync, w.win(), [&](int t) {
      EXPECT_EQ(MPIX_Get(&in[t * block], block, MPI_INT, t, w.disp(t, me * block), block, MPI_INT, w.win()),
                MPI_SUCCESS);
    });
    EXPECT_EQ(in, out) << "iteration " << it;
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, WinData,
    ::testing::Combine(::testing::Values(WinKind::created, WinKind::allocated, WinKind::dynamic),
                       ::testing::Values(Sync::fence, Sync::pscw, Sync::lock, Sync::lock_all),
                       ::testing::Values(3, 4096)),
    [](const ::testing::TestParamInfo<Params>& info) {
      return std::string(kind_name(std::get<0>(info.param))) + "_" + sync_name(std::get<1>(info.param)) + "_" +
             std::to_string(std::get<2>(info.param)) + "ints";
    });

namespace {
class WinKinds : public MpiTest, public ::testing::WithParamInterface<WinKind> {};
}  // namespace

TEST_P(WinKinds, RequestPutsCompleteLocallyAndRemotely) {
  const int p = world_size(), me = world_rank();
  TestWindow w(GetParam(), 2048 * p);
  ASSERT_EQ(w.status(), MPI_SUCCESS);
  std::vector<int> out(2048);
  for (int i = 0; i < 2048; ++i) out[i] = me * 7 + i;
  ASSERT_EQ(MPIX_Win_lock_all(0, w.win()), MPI_SUCCESS);
  for (int t = 0; t < p; ++t) {
    MPIX_Request* local = nullptr;
    MPIX_Request* remote = nullptr;
    ASSERT_EQ(MPIX_Rput(out.data(), 1024, MPI_INT, t, w.disp(t, me * 2048), 1024, MPI_INT, w.win(), &local),
              MPI_SUCCESS);
    ASSERT_EQ(MPIX_Rrput(&out[1024], 1024, MPI_INT, t, w.disp(t, me * 2048 + 1024), 1024, MPI_INT, w.win(), &remote),
              MPI_SUCCESS);
    EXPECT_EQ(MPIX_Wait(local, MPI_STATUS_IGNORE), MPI_SUCCESS);
    EXPECT_EQ(MPIX_Wait(remote, MPI_STATUS_IGNORE), MPI_SUCCESS);
    EXPECT_EQ(error_class(MPIX_Start(remote)), MPI_ERR_REQUEST);  // one-shot
    EXPECT_EQ(MPIX_Request_free(&local), MPI_SUCCESS);
    EXPECT_EQ(MPIX_Request_free(&remote), MPI_SUCCESS);
  }
  ASSERT_EQ(MPIX_Win_flush_all(w.win()), MPI_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);
  ASSERT_EQ(MPIX_Win_sync(w.win()), MPI_SUCCESS);
  int wrong = 0;
  for (int s = 0; s < p; ++s)
    for (int i = 0; i < 2048; ++i) wrong += w.load(s * 2048 + i) != s * 7 + i;
  EXPECT_EQ(wrong, 0);
  ASSERT_EQ(MPIX_Win_unlock_all(w.win()), MPI_SUCCESS);
}

TEST_P(WinKinds, ReplaceAccumulateAndOneSidedSumFromEveryRank) {
  const int p = world_size(), me = world_rank();
  TestWindow w(GetParam(), 4);
  ASSERT_EQ(w.status(), MPI_SUCCESS);
  for (int i = 0; i < 4; ++i) w.memory()[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  const int contribution[4] = {me, 1, 2 * me, -me};
  ASSERT_EQ(MPIX_Win_lock_all(0, w.win()), MPI_SUCCESS);
  for (int t = 0; t < p; ++t)
    EXPECT_EQ(MPIX_Accumulate(contribution, 4, MPI_INT, t, w.disp(t, 0), 4, MPI_INT, MPI_SUM, w.win()), MPI_SUCCESS);
  ASSERT_EQ(MPIX_Win_unlock_all(w.win()), MPI_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);
  ASSERT_EQ(MPIX_Win_sync(w.win()), MPI_SUCCESS);
  const int sum = p * (p - 1) / 2;
  EXPECT_EQ(w.load(0), sum);
  EXPECT_EQ(w.load(1), p);
  EXPECT_EQ(w.load(2), 2 * sum);
  EXPECT_EQ(w.load(3), -sum);
  MPI_Barrier(MPI_COMM_WORLD);
  // MPI_REPLACE from the last rank only.
  const int replacement = 99;
  ASSERT_EQ(MPIX_Win_fence(0, w.win()), MPI_SUCCESS);
  if (me == p - 1)
    for (int t = 0; t < p; ++t)
      EXPECT_EQ(MPIX_Accumulate(&replacement, 1, MPI_INT, t, w.disp(t, 3), 1, MPI_INT, MPI_REPLACE, w.win()),
                MPI_SUCCESS);
  ASSERT_EQ(MPIX_Win_fence(0, w.win()), MPI_SUCCESS);
  EXPECT_EQ(w.load(3), 99);
}

INSTANTIATE_TEST_SUITE_P(Kinds, WinKinds, ::testing::Values(WinKind::created, WinKind::allocated, WinKind::dynamic),
                         [](const ::testing::TestParamInfo<WinKind>& info) { return kind_name(info.param); });

TEST_F(MpiTest, NonContiguousDatatypesTakeTheMpiPath) {
  const int p = world_size(), me = world_rank();
  TestWindow w(WinKind::created, 4 * p);
  ASSERT_EQ(w.status(), MPI_SUCCESS);
  for (int i = 0; i < 4 * p; ++i) w.memory()[i] = -1;
  MPI_Datatype every_other;
  MPI_Type_vector(2, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  const int out[3] = {me * 10 + 1, -5, me * 10 + 2};
  ASSERT_EQ(MPIX_Win_fence(0, w.win()), MPI_SUCCESS);
  for (int t = 0; t < p; ++t)
    EXPECT_EQ(MPIX_Put(out, 1, every_other, t, w.disp(t, 4 * me), 1, every_other, w.win()), MPI_SUCCESS);
  ASSERT_EQ(MPIX_Win_fence(0, w.win()), MPI_SUCCESS);
  for (int s = 0; s < p; ++s) {
    EXPECT_EQ(w.load(4 * s), s * 10 + 1);
    EXPECT_EQ(w.load(4 * s + 1), -1) << "the hole stays untouched";
    EXPECT_EQ(w.load(4 * s + 2), s * 10 + 2);
  }
  MPI_Type_free(&every_other);
}

// A created window over MPIX_Alloc_mem memory gives node peers load/store
// access (mpix_paths says shm unless MPIX_NODE_PATH forbids it) with the
// same data as any other path.
TEST_F(MpiTest, CreatedWindowOverMpixAllocMemIsLoadStoreOnTheNode) {
  const int p = world_size(), me = world_rank();
  int* memory = nullptr;
  ASSERT_EQ(MPIX_Alloc_mem(static_cast<MPI_Aint>(p * sizeof(int)), nullptr, &memory), MPI_SUCCESS);
  for (int i = 0; i < p; ++i) memory[i] = -1;
  MPIX_Comm* comm = nullptr;
  ASSERT_EQ(MPIX_Comm_init(&comm, MPI_COMM_WORLD), MPI_SUCCESS);
  MPIX_Win* win = nullptr;
  ASSERT_EQ(MPIX_Win_create(memory, static_cast<MPI_Aint>(p * sizeof(int)), sizeof(int), nullptr, comm, &win),
            MPI_SUCCESS);
  MPIX_Info* used = nullptr;
  ASSERT_EQ(MPIX_Win_get_info(win, &used), MPI_SUCCESS);
  char paths[128] = "";
  int flag = 0;
  MPIX_Info_get(used, "mpix_paths", sizeof(paths) - 1, paths, &flag);
  MPIX_Info_free(&used);
  int node = 0, node_rank = 0, node_size = 0, nodes = 0;
  MPIX_Comm_get_node(comm, &node, &node_rank, &node_size, &nodes);
  const mpix::NodePath forced = mpix::Library::get().config().section<mpix::WindowConfig>().node_path;
  if (node_size > 1 && (forced == mpix::NodePath::automatic || forced == mpix::NodePath::shm))
    EXPECT_NE(std::string(paths).find("node:shm"), std::string::npos) << paths;
  // win.cma_path forces CMA: it must be what runs (a refused CMA would fall
  // back to MPI RMA silently, and the data alone would not tell).
  if (node_size > 1 && forced == mpix::NodePath::cma)
    EXPECT_NE(std::string(paths).find("node:cma"), std::string::npos) << paths;

  const int out = 100 + me;
  const std::uint64_t cma_before = mpix::cma_calls();
  ASSERT_EQ(MPIX_Win_fence(0, win), MPI_SUCCESS);
  for (int t = 0; t < p; ++t) EXPECT_EQ(MPIX_Put(&out, 1, MPI_INT, t, me, 1, MPI_INT, win), MPI_SUCCESS);
  ASSERT_EQ(MPIX_Win_fence(0, win), MPI_SUCCESS);
  for (int s = 0; s < p; ++s) EXPECT_EQ(memory[s], 100 + s);
  // ... and the unordered puts to node peers went by CMA, one call each
  // (what ran, not only what mpix_paths says was chosen).
  if (node_size > 1 && forced == mpix::NodePath::cma)
    EXPECT_GE(mpix::cma_calls() - cma_before, static_cast<std::uint64_t>(node_size - 1));
  ASSERT_EQ(MPIX_Win_free(&win), MPI_SUCCESS);
  ASSERT_EQ(MPIX_Comm_free(&comm), MPI_SUCCESS);
  ASSERT_EQ(MPIX_Free_mem(memory), MPI_SUCCESS);
}

// Windows over memory at any alignment: MPICH 4.0.2 places an MPI window
// over memory that is not 16-byte aligned at the address rounded down, so
// MPI-path puts, gets and accumulates landed up to 15 bytes early. Every
// path (win.mpi_path runs this with every target off-node) must hit the
// element asked for and nothing beside it.
TEST_F(MpiTest, CreatedWindowAtAnyAlignmentHitsTheRightElement) {
  const int p = world_size(), me = world_rank();
  MPIX_Comm* comm = nullptr;
  ASSERT_EQ(MPIX_Comm_init(&comm, MPI_COMM_WORLD), MPI_SUCCESS);
  for (int offset : {1, 4, 8, 13}) {
    std::vector<unsigned char> area(64 + p * sizeof(int) + 64, 0xA5);
    unsigned char* base = area.data() + offset;
    MPIX_Win* win = nullptr;
    ASSERT_EQ(MPIX_Win_create(base, static_cast<MPI_Aint>(p * sizeof(int)), sizeof(int), nullptr, comm, &win),
              MPI_SUCCESS);
    const int out = 1000 + me, one = 1;
    ASSERT_EQ(MPIX_Win_fence(0, win), MPI_SUCCESS);
    for (int t = 0; t < p; ++t) EXPECT_EQ(MPIX_Put(&out, 1, MPI_INT, t, me, 1, MPI_INT, win), MPI_SUCCESS);
    ASSERT_EQ(MPIX_Win_fence(0, win), MPI_SUCCESS);
    for (int t = 0; t < p; ++t)
      EXPECT_EQ(MPIX_Accumulate(&one, 1, MPI_INT, t, me, 1, MPI_INT, MPI_SUM, win), MPI_SUCCESS);
    ASSERT_EQ(MPIX_Win_fence(0, win), MPI_SUCCESS);
    std::vector<int> got(p, -1);
    for (int t = 0; t < p; ++t) EXPECT_EQ(MPIX_Get(&got[t], 1, MPI_INT, t, t, 1, MPI_INT, win), MPI_SUCCESS);
    ASSERT_EQ(MPIX_Win_fence(0, win), MPI_SUCCESS);
    for (int s = 0; s < p; ++s) {
      int value = 0;
      std::memcpy(&value, base + s * sizeof(int), sizeof value);
      EXPECT_EQ(value, 1001 + s) << "offset " << offset << ", element " << s;
      EXPECT_EQ(got[s], 1001 + s) << "offset " << offset << ", got from " << s;
    }
    for (int i = 0; i < offset; ++i) EXPECT_EQ(area[i], 0xA5) << "offset " << offset << ": byte before";
    for (std::size_t i = offset + p * sizeof(int); i < area.size(); ++i)
      EXPECT_EQ(area[i], 0xA5) << "offset " << offset << ": byte after";
    ASSERT_EQ(MPIX_Win_free(&win), MPI_SUCCESS);
  }
  ASSERT_EQ(MPIX_Comm_free(&comm), MPI_SUCCESS);
}

// A window creation that fails on one rank fails on every rank (the others
// must not wait in a creation that rank left), naming that rank; the
// communicator stays usable for a window made right afterwards.
TEST_F(MpiTest, AWindowCreationThatFailsOnOneRankFailsOnEveryRank) {
  const int p = world_size(), me = world_rank();
  std::vector<int> memory(static_cast<std::size_t>(p), -1);
  MPIX_Comm* comm = nullptr;
  ASSERT_EQ(MPIX_Comm_init(&comm, MPI_COMM_WORLD), MPI_SUCCESS);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int bad = p - 1;
  MPIX_Win* win = nullptr;
  const int rc = MPIX_Win_create(me == bad ? nullptr : memory.data(), static_cast<MPI_Aint>(p * sizeof(int)),
                                 sizeof(int), nullptr, comm, &win);
  EXPECT_EQ(error_class(rc), MPI_ERR_BUFFER);
  EXPECT_NE(error_message(rc).find("on rank " + std::to_string(bad) + ": base is NULL"), std::string::npos)
      << error_message(rc);
  EXPECT_EQ(win, nullptr);
  ASSERT_EQ(MPIX_Win_create(memory.data(), static_cast<MPI_Aint>(p * sizeof(int)), sizeof(int), nullptr, comm, &win),
            MPI_SUCCESS);
  EXPECT_EQ(MPIX_Win_free(&win), MPI_SUCCESS);
  EXPECT_EQ(MPIX_Comm_free(&comm), MPI_SUCCESS);
}

// A freed window is MPI_ERR_WIN in every call that takes one, not a crash.
TEST_F(MpiTest, AFreedWindowIsAnErrWinNotACrash) {
  const int p = world_size();
  std::vector<int> memory(static_cast<std::size_t>(p), -1);
  MPIX_Comm* comm = nullptr;
  ASSERT_EQ(MPIX_Comm_init(&comm, MPI_COMM_WORLD), MPI_SUCCESS);
  MPIX_Win* win = nullptr;
  ASSERT_EQ(MPIX_Win_create(memory.data(), static_cast<MPI_Aint>(p * sizeof(int)), sizeof(int), nullptr, comm, &win),
            MPI_SUCCESS);
  MPIX_Win* stale = win;
  ASSERT_EQ(MPIX_Win_free(&win), MPI_SUCCESS);
  EXPECT_EQ(win, nullptr);
  const int x = 1;
  EXPECT_EQ(error_class(MPIX_Win_fence(0, stale)), MPI_ERR_WIN);
  EXPECT_EQ(error_class(MPIX_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, stale)), MPI_ERR_WIN);
  EXPECT_EQ(error_class(MPIX_Win_lock_all(0, stale)), MPI_ERR_WIN);
  EXPECT_EQ(error_class(MPIX_Win_free(&stale)), MPI_ERR_WIN);
  EXPECT_EQ(MPIX_Comm_free(&comm), MPI_SUCCESS);
}
