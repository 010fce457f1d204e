// Memory handles: create, send, from_memhandle, put/get/accumulate, release,
// and the errors of using a handle after its release, for user memory (CMA
// or MPI RMA) and MPIX_Alloc_mem memory (load/store on the node).
#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "rma/memhandle.hpp"
#include "tests/mpi_test.hpp"

using namespace mpix_test;

namespace {

constexpr int block = 2048;  // ints: large enough for CMA, small puts go first

enum class Memory { user, alloc_mem };

class Memhandles : public MpiTest, public ::testing::WithParamInterface<Memory> {
 protected:
  void SetUp() override {
    MpiTest::SetUp();
    p = world_size();
    me = world_rank();
    ints = block * p + 1;  // a block per origin, then a counter
    ASSERT_EQ(MPIX_Comm_init(&comm, MPI_COMM_WORLD), MPI_SUCCESS);
    ASSERT_EQ(MPIX_Win_create_dynamic(nullptr, comm, &parent), MPI_SUCCESS);
    const MPI_Aint bytes = static_cast<MPI_Aint>(ints) * sizeof(int);
    if (GetParam() == Memory::alloc_mem) {
      ASSERT_EQ(MPIX_Alloc_mem(bytes, nullptr, &memory), MPI_SUCCESS);
    } else {
      own.assign(ints, 0);
      memory = own.data();
    }
    for (int i = 0; i < ints; ++i) memory[i] = -1;
    ASSERT_EQ(MPIX_Memhandle_create(memory, bytes, nullptr, parent, mine.data(), &handle_size), MPI_SUCCESS);
    ASSERT_GT(handle_size, 0);
    ASSERT_LE(handle_size, MPIX_MAX_MEMHANDLE_SIZE);
    handles.resize(static_cast<std::size_t>(p) * MPIX_MAX_MEMHANDLE_SIZE);
    MPI_Allgather(mine.data(), MPIX_MAX_MEMHANDLE_SIZE, MPI_BYTE, handles.data(), MPIX_MAX_MEMHANDLE_SIZE, MPI_BYTE,
                  MPI_COMM_WORLD);
    wins.assign(p, nullptr);
    for (int t = 0; t < p; ++t)
      ASSERT_EQ(MPIX_Win_from_memhandle(handle_of(t), bytes, sizeof(int), nullptr, t, parent, &wins[t]),
                MPI_SUCCESS);
  }
  void TearDown() override {
    for (MPIX_Win*& w : wins) MPIX_Win_free(&w);
    MPI_Barrier(MPI_COMM_WORLD);
    if (!released) MPIX_Memhandle_release(mine.data(), parent);
    MPIX_Win_free(&parent);
    if (GetParam() == Memory::alloc_mem) MPIX_Free_mem(memory);
    MPIX_Comm_free(&comm);
    MpiTest::TearDown();
  }
  const char* handle_of(int rank) const { return &handles[static_cast<std::size_t>(rank) * MPIX_MAX_MEMHANDLE_SIZE]; }
  int load(int i) const { return __atomic_load_n(&memory[i], __ATOMIC_ACQUIRE); }

  int p = 0, me = 0, ints = 0;
  MPIX_Comm* comm = nullptr;
  MPIX_Win* parent = nullptr;
  int* memory = nullptr;
  std::vector<int> own;
  std::array<char, MPIX_MAX_MEMHANDLE_SIZE> mine{};
  std::vector<char> handles;
  std::vector<MPIX_Win*> wins;
  int handle_size = 0;
  bool released = false;
};

int value(int origin, int target, int i) { return origin * 100003 + target * 1009 + i; }

}  // namespace

TEST_P(Memhandles, PutGetAccumulateThroughHandleWindows) {
  std::vector<int> out(static_cast<std::size_t>(block) * p), in(out.size(), -5);
  for (int t = 0; t < p; ++t)
    for (int i = 0; i < block; ++i) out[t * block + i] = value(me, t, i);
  const int one = 1;
  ASSERT_EQ(MPIX_Win_lock_all(0, parent), MPI_SUCCESS);
  for (int t = 0; t < p; ++t) {
    // A tiny put (MPI path below the CMA threshold) and a large one.
    EXPECT_EQ(MPIX_Put(&out[t * block], 1, MPI_INT, t, me * block, 1, MPI_INT, wins[t]), MPI_SUCCESS);
    EXPECT_EQ(MPIX_Put(&out[t * block + 1], block - 1, MPI_INT, t, me * block + 1, block - 1, MPI_INT, wins[t]),
              MPI_SUCCESS);
    EXPECT_EQ(MPIX_Accumulate(&one, 1, MPI_INT, t, block * p, 1, MPI_INT, MPI_SUM, wins[t]), MPI_SUCCESS);
    EXPECT_EQ(MPIX_Win_flush(t, wins[t]), MPI_SUCCESS);
  }
  ASSERT_EQ(MPIX_Win_unlock_all(parent), MPI_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);
  ASSERT_EQ(MPIX_Win_sync(parent), MPI_SUCCESS);
  int wrong = 0;
  for (int s = 0; s < p; ++s)
    for (int i = 0; i < block; ++i) wrong += load(s * block + i) != value(s, me, i);
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(load(block * p), -1 + p);

  ASSERT_EQ(MPIX_Win_lock_all(0, parent), MPI_SUCCESS);
  for (int t = 0; t < p; ++t)
    EXPECT_EQ(MPIX_Get(&in[t * block], block, MPI_INT, t, me * block, block, MPI_INT, wins[t]), MPI_SUCCESS);
  EXPECT_EQ(MPIX_Win_flush_all(parent), MPI_SUCCESS);
  ASSERT_EQ(MPIX_Win_unlock_all(parent), MPI_SUCCESS);
  EXPECT_EQ(in, out);
}

TEST_P(Memhandles, MisuseIsReported) {
  const int t = (me + 1) % p;
  int x = 0;
  EXPECT_EQ(error_class(MPIX_Put(&x, 1, MPI_INT, t, 0, 1, MPI_INT, wins[t])), MPI_ERR_RMA_SYNC) << "no epoch";
  EXPECT_EQ(error_class(MPIX_Win_lock(MPI_LOCK_SHARED, t, 0, wins[t])), MPI_ERR_RMA_SYNC) << "lock via parent only";
  EXPECT_EQ(error_class(MPIX_Win_fence(0, wins[t])), MPI_ERR_RMA_SYNC);
  ASSERT_EQ(MPIX_Win_lock_all(0, parent), MPI_SUCCESS);
  if (p > 1) EXPECT_EQ(error_class(MPIX_Put(&x, 1, MPI_INT, me, 0, 1, MPI_INT, wins[t])), MPI_ERR_RANK);
  EXPECT_EQ(error_class(MPIX_Put(&x, 1, MPI_INT, t, ints, 1, MPI_INT, wins[t])), MPI_ERR_RMA_RANGE);
  EXPECT_EQ(error_class(MPIX_Put(&x, 1, MPI_INT, t, -1, 1, MPI_INT, wins[t])), MPI_ERR_RMA_RANGE);
  ASSERT_EQ(MPIX_Win_unlock_all(parent), MPI_SUCCESS);
  MPIX_Win* too_big = nullptr;
  EXPECT_EQ(error_class(MPIX_Win_from_memhandle(handle_of(t), 1 << 30, 1, nullptr, t, parent, &too_big)),
            MPI_ERR_SIZE);
  EXPECT_EQ(error_class(MPIX_Win_from_memhandle(handle_of(t), 4, 1, nullptr, me == t ? t + 1 : me, parent, &too_big)),
            MPI_ERR_RANK);
  const char garbage[MPIX_MAX_MEMHANDLE_SIZE] = {1, 2, 3};
  EXPECT_EQ(error_class(MPIX_Win_from_memhandle(garbage, 4, 1, nullptr, t, parent, &too_big)), MPI_ERR_ARG);
  if (p > 1)
    EXPECT_EQ(error_class(MPIX_Memhandle_release(const_cast<char*>(handle_of(t)), parent)), MPI_ERR_ARG)
        << "only the owner releases";
  EXPECT_EQ(error_class(MPIX_Win_free(&parent)), MPI_ERR_WIN) << "handle windows are still alive";
}

// A handle is user memory: each of 1000 copies of a peer's handle gets
// random bytes over a stretch of 1 to 8 bytes, every byte position in turn
// (so every field), and must be refused as MPI_ERR_ARG on this rank, never
// taken or turned into a signal.
TEST_P(Memhandles, FuzzedHandlesAreRefused) {
  const int t = (me + 1) % p;
  std::mt19937_64 random(0x5eed + static_cast<unsigned>(me));
  int taken = 0, wrong_class = 0;
  for (int i = 0; i < 1000; ++i) {
    std::array<char, MPIX_MAX_MEMHANDLE_SIZE> fuzzed;
    std::memcpy(fuzzed.data(), handle_of(t), fuzzed.size());
    const int at = i % handle_size;
    const int length = std::min(1 + static_cast<int>(random() % 8), handle_size - at);
    do {
      for (int b = 0; b < length; ++b) fuzzed[static_cast<std::size_t>(at + b)] = static_cast<char>(random());
    } while (std::memcmp(fuzzed.data() + at, handle_of(t) + at, static_cast<std::size_t>(length)) == 0);
    MPIX_Win* w = nullptr;
    const int rc = MPIX_Win_from_memhandle(fuzzed.data(), sizeof(int), sizeof(int), nullptr, t, parent, &w);
    if (rc == MPI_SUCCESS) {
      ++taken;
      MPIX_Win_free(&w);
    } else if (error_class(rc) != MPI_ERR_ARG) {
      ++wrong_class;
    }
  }
  EXPECT_EQ(taken, 0) << "fuzzed handles turned into windows";
  EXPECT_EQ(wrong_class, 0) << "fuzzed handles refused with another class than MPI_ERR_ARG";
  MPIX_Win* w = nullptr;
  ASSERT_EQ(MPIX_Win_from_memhandle(handle_of(t), sizeof(int), sizeof(int), nullptr, t, parent, &w), MPI_SUCCESS)
      << "the intact handle";
  MPIX_Win_free(&w);
}

// The fields used as an index or a size are checked by name before the
// seal (which would catch them too, but only as "a field was changed"): a
// slot outside the handle table, a size larger than any memory, and, for a
// segment, a size past its end.
TEST_P(Memhandles, IndexAndSizeFieldsAreRefusedByName) {
  const int t = (me + 1) % p;
  const auto refused_naming = [&](auto change, const std::string& field) {
    std::array<char, MPIX_MAX_MEMHANDLE_SIZE> changed;
    std::memcpy(changed.data(), handle_of(t), changed.size());
    mpix::MemhandleData h;
    std::memcpy(&h, changed.data(), sizeof h);
    change(h);
    std::memcpy(changed.data(), &h, sizeof h);
    MPIX_Win* w = nullptr;
    const int rc = MPIX_Win_from_memhandle(changed.data(), sizeof(int), sizeof(int), nullptr, t, parent, &w);
    EXPECT_EQ(error_class(rc), MPI_ERR_ARG) << field;
    char message[MPIX_MAX_ERROR_STRING];
    int length = 0;
    MPIX_Error_string(rc, message, &length);
    EXPECT_NE(std::string(message, static_cast<std::size_t>(length)).find(field), std::string::npos)
        << "the message does not name " << field << ": " << std::string(message, static_cast<std::size_t>(length));
    if (rc == MPI_SUCCESS) MPIX_Win_free(&w);
  };
  refused_naming([](mpix::MemhandleData& h) { h.slot += 1u << 30; }, "slot = ");
  refused_naming([](mpix::MemhandleData& h) { h.size = ~std::uint64_t{0}; }, "larger than any memory");
  mpix::MemhandleData h;
  std::memcpy(&h, handle_of(t), sizeof h);
  if (h.memory.segment_fd >= 0)
    refused_naming([](mpix::MemhandleData& h) { h.size = h.memory.segment_size + 1; }, "reaches past its");
}

// A handle of another parent window fails its seal there.
TEST_P(Memhandles, HandleOfAnotherParentIsRefused) {
  MPIX_Win* other = nullptr;
  ASSERT_EQ(MPIX_Win_create_dynamic(nullptr, comm, &other), MPI_SUCCESS);
  const int t = (me + 1) % p;
  MPIX_Win* w = nullptr;
  EXPECT_EQ(error_class(MPIX_Win_from_memhandle(handle_of(t), sizeof(int), sizeof(int), nullptr, t, other, &w)),
            MPI_ERR_ARG);
  MPIX_Win_free(&other);
}

TEST_P(Memhandles, UseAfterReleaseIsDetectedByOwnerAndNodePeers) {
  // Everyone releases while keeping the windows made from the handles.
  MPI_Barrier(MPI_COMM_WORLD);
  ASSERT_EQ(MPIX_Memhandle_release(mine.data(), parent), MPI_SUCCESS);
  released = true;
  EXPECT_EQ(error_class(MPIX_Memhandle_release(mine.data(), parent)), MPI_ERR_ARG) << "second release";
  MPIX_Win* again = nullptr;
  EXPECT_EQ(error_class(MPIX_Win_from_memhandle(mine.data(), 4, 1, nullptr, me, parent, &again)), MPI_ERR_ARG);
  MPI_Barrier(MPI_COMM_WORLD);
  int x = 7;
  ASSERT_EQ(MPIX_Win_lock_all(0, parent), MPI_SUCCESS);
  EXPECT_EQ(error_class(MPIX_Put(&x, 1, MPI_INT, me, 0, 1, MPI_INT, wins[me])), MPI_ERR_WIN) << "owner";
  // Node peers see the release through the shared handle table.
  const char* node_size = std::getenv("MPIX_NODE_SIZE");
  if (node_size == nullptr && p > 1) {
    const int t = (me + 1) % p;
    EXPECT_EQ(error_class(MPIX_Put(&x, 1, MPI_INT, t, 0, 1, MPI_INT, wins[t])), MPI_ERR_WIN) << "node peer";
  }
  ASSERT_EQ(MPIX_Win_unlock_all(parent), MPI_SUCCESS);
  EXPECT_EQ(load(0), -1) << "nothing was written after the release";
}

TEST_P(Memhandles, InfoNamesTheTargetAndPath) {
  const int t = (me + 1) % p;
  MPIX_Info* info = nullptr;
  ASSERT_EQ(MPIX_Win_get_info(wins[t], &info), MPI_SUCCESS);
  char value[64];
  int flag = 0;
  ASSERT_EQ(MPIX_Info_get(info, "mpix_memhandle_target", sizeof value - 1, value, &flag), MPI_SUCCESS);
  EXPECT_TRUE(flag);
  EXPECT_EQ(std::stoi(value), t);
  ASSERT_EQ(MPIX_Info_get(info, "mpix_paths", sizeof value - 1, value, &flag), MPI_SUCCESS);
  const bool on_node = std::getenv("MPIX_NODE_SIZE") == nullptr;
  const bool automatic = std::getenv("MPIX_NODE_PATH") == nullptr;
  if (on_node && automatic && GetParam() == Memory::alloc_mem) EXPECT_STREQ(value, "shm");
  const char* forced = std::getenv("MPIX_NODE_PATH");
  if (on_node && forced != nullptr && std::string(forced) == "cma" && t != me) EXPECT_STREQ(value, "cma");
  if (!on_node && t != me) EXPECT_STREQ(value, "mpi");
  MPIX_Info_free(&info);
}

INSTANTIATE_TEST_SUITE_P(Memory, Memhandles, ::testing::Values(Memory::user, Memory::alloc_mem),
                         [](const ::testing::TestParamInfo<Memory>& info) {
                           return info.param == Memory::user ? "user_memory" : "alloc_mem";
                         });

TEST_F(MpiTest, AllocMemRejectsForeignPointers) {
  int local = 0;
  EXPECT_EQ(error_class(MPIX_Free_mem(&local)), MPI_ERR_BASE);
  void* p = nullptr;
  ASSERT_EQ(MPIX_Alloc_mem(64, nullptr, &p), MPI_SUCCESS);
  EXPECT_EQ(MPIX_Free_mem(p), MPI_SUCCESS);
  EXPECT_EQ(error_class(MPIX_Free_mem(p)), MPI_ERR_BASE) << "double free";
}
