// What the RMA algorithms must get right beyond one request's data: the
// receive buffer belongs to the user between Wait and the next Start, two
// live requests on one communicator stay apart, a new request over a new
// buffer writes only there, and the paper's entry points. Every registered
// algorithm runs each test; expected data comes from MPI_Alltoallv, computed
// before the loop so that nothing in the loop synchronizes the ranks.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "tests/alltoallv/alltoallv_case.hpp"
#include "tests/alltoallv/forced_algorithm.hpp"

using namespace mpix_test;

namespace {

// One persistent exchange of a pattern over its own buffers, and the
// receive buffer MPI_Alltoallv produces for every iteration's send data.
class Exchanged {
 public:
  // gaps: spread this rank's blocks out even if the pattern does not.
  Exchanged(const Pattern& pattern, int iterations, bool gaps = false)
      : x_(make_exchange(pattern.counts(world_size()), world_rank(), pattern.gaps || gaps, pattern.reversed)),
        send_(std::max<std::size_t>(1, x_.send_elements) * sizeof(int)),
        recv_(std::max<std::size_t>(1, x_.recv_elements) * sizeof(int), poison) {
    for (int it = 0; it < iterations; ++it) {
      fill(it);
      expected_.emplace_back(recv_.size(), poison);
      MPI_Alltoallv(send_.data(), x_.sendcounts.data(), x_.sdispls.data(), MPI_INT, expected_.back().data(),
                    x_.recvcounts.data(), x_.rdispls.data(), MPI_INT, MPI_COMM_WORLD);
    }
  }
  ~Exchanged() {
    if (request_ != nullptr) MPIX_Request_free(&request_);
  }

  int init(MPIX_Comm* comm, MPIX_Info* info) {
    return MPIX_Alltoallv_init(send_.data(), x_.sendcounts.data(), x_.sdispls.data(), MPI_INT, recv_.data(),
                               x_.recvcounts.data(), x_.rdispls.data(), MPI_INT, comm, info, &request_);
  }
  void fill(int iteration) { fill_send(send_, iteration, world_rank()); }
  // Index of the first byte that differs from iteration's expected data, or -1.
  long wrong_byte(int iteration) const { return first_difference(recv_, expected_[iteration]); }

  MPIX_Request*& request() { return request_; }
  std::vector<unsigned char>& send() { return send_; }
  std::vector<unsigned char>& recv() { return recv_; }
  const Exchange& exchange() const { return x_; }

 private:
  Exchange x_;
  std::vector<unsigned char> send_, recv_;
  std::vector<std::vector<unsigned char>> expected_;
  MPIX_Request* request_ = nullptr;
};

const Pattern& pattern_named(const char* name) {
  for (const Pattern& p : patterns())
    if (std::string(p.name) == name) return p;
  throw std::invalid_argument(std::string("no pattern named ") + name);
}

// Spends the time inside MPI's progress engine: puts that MPICH delivers
// as active messages land only while the target progresses.
void progress_for(std::chrono::microseconds duration) {
  const auto end = std::chrono::steady_clock::now() + duration;
  int flag = 0;
  while (std::chrono::steady_clock::now() < end) {
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
    std::this_thread::yield();
  }
}

class AlltoallvRma : public MpiTest, public ::testing::WithParamInterface<std::string> {};

}  // namespace

// Every rank checks its receive buffer after Wait, slowly and for a
// different time each iteration, while its sources may already be in the
// next iteration: an origin that wrote before its target's Start would
// show up as the next iteration's bytes. (Removing the barrier from lock's
// Start makes this test fail.)
TEST_P(AlltoallvRma, ReceiveBufferIsTheUsersBetweenWaitAndTheNextStart) {
  const int n = iterations(), rank = world_rank();
  Exchanged x(pattern_named("gapped_reversed"), n);
  ForcedAlgorithm forced(GetParam());
  ASSERT_EQ(x.init(forced.comm(), forced.info()), MPI_SUCCESS);
  int wrong = 0;
  for (int it = 0; it < n; ++it) {
    x.fill(it);
    ASSERT_EQ(MPIX_Start(x.request()), MPI_SUCCESS);
    ASSERT_EQ(MPIX_Wait(x.request(), MPI_STATUS_IGNORE), MPI_SUCCESS);
    progress_for(std::chrono::microseconds(((it * 7 + rank * 13) % 5) * 400));
    wrong += x.wrong_byte(it) != -1;
    progress_for(std::chrono::microseconds(rank == 0 ? 300 : 0));
    wrong += x.wrong_byte(it) != -1;
  }
  EXPECT_EQ(wrong, 0) << "the receive buffer changed between Wait and the next Start";
}

// Rank 0 sends to every other rank and receives nothing, so no source holds
// it back: an algorithm without a barrier lets it run iterations ahead while
// each receiver dawdles between Wait and Start. Every receiver must still
// find exactly that iteration's data after each Wait, and nothing new before
// its next Start.
TEST_P(AlltoallvRma, ASourceRunningAheadNeverOverwritesADelayedReceiver) {
  const int n = iterations(), rank = world_rank(), size = world_size();
  const int block = 1000;  // ints: several chunks where the node channel's slots are small
  std::vector<int> sendcounts(size, 0), sdispls(size, 0), recvcounts(size, 0), rdispls(size, 0);
  if (rank == 0) {
    for (int p = 1; p < size; ++p) sendcounts[p] = block, sdispls[p] = p * block;
  } else {
    recvcounts[0] = block;
  }
  std::vector<int> send(static_cast<std::size_t>(size) * block), recv(block, -1);
  auto value = [](int it, int target, int i) { return it * 1000003 + target * 1009 + i; };
  ForcedAlgorithm forced(GetParam());
  MPIX_Request* request = nullptr;
  ASSERT_EQ(MPIX_Alltoallv_init(send.data(), sendcounts.data(), sdispls.data(), MPI_INT, recv.data(),
                                recvcounts.data(), rdispls.data(), MPI_INT, forced.comm(), forced.info(), &request),
            MPI_SUCCESS);
  int wrong = 0;
  for (int it = 0; it < n; ++it) {
    for (int p = 1; p < size && rank == 0; ++p)
      for (int i = 0; i < block; ++i) send[static_cast<std::size_t>(p) * block + i] = value(it, p, i);
    ASSERT_EQ(MPIX_Start(request), MPI_SUCCESS);
    ASSERT_EQ(MPIX_Wait(request, MPI_STATUS_IGNORE), MPI_SUCCESS);
    if (rank == 0) continue;
    auto differs = [&] {
      for (int i = 0; i < block; ++i)
        if (recv[i] != value(it, rank, i)) return 1;
      return 0;
    };
    wrong += differs();
    progress_for(std::chrono::microseconds(((it * 7 + rank * 13) % 5) * 300));
    wrong += differs();
  }
  EXPECT_EQ(wrong, 0) << "a receiver saw another iteration's data";
  EXPECT_EQ(MPIX_Request_free(&request), MPI_SUCCESS);
}

// Buffers from MPIX_Alloc_mem, which node peers map: the algorithms' direct
// paths (copies straight into a peer's receive buffer, the node channel's
// single copy straight out of a peer's send buffer) with blocks large enough
// to take them, new data every iteration, uneven block sizes.
TEST_P(AlltoallvRma, MpixAllocMemBuffersDeliverEveryIteration) {
  const int n = iterations(), rank = world_rank(), size = world_size();
  std::vector<int> sendcounts(size), sdispls(size), recvcounts(size), rdispls(size);
  auto count = [](int from, int to) { return 17000 + 1000 * ((from + 2 * to) % 3); };  // 66-76 KiB
  int send_total = 0, recv_total = 0;
  for (int p = 0; p < size; ++p) {
    sendcounts[p] = count(rank, p), sdispls[p] = send_total, send_total += sendcounts[p];
    recvcounts[p] = count(p, rank), rdispls[p] = recv_total, recv_total += recvcounts[p];
  }
  int *send = nullptr, *recv = nullptr;
  ASSERT_EQ(MPIX_Alloc_mem(send_total * static_cast<MPI_Aint>(sizeof(int)), nullptr, &send), MPI_SUCCESS);
  ASSERT_EQ(MPIX_Alloc_mem(recv_total * static_cast<MPI_Aint>(sizeof(int)), nullptr, &recv), MPI_SUCCESS);
  std::vector<int> expected(static_cast<std::size_t>(recv_total));
  ForcedAlgorithm forced(GetParam());
  MPIX_Request* request = nullptr;
  ASSERT_EQ(MPIX_Alltoallv_init(send, sendcounts.data(), sdispls.data(), MPI_INT, recv, recvcounts.data(),
                                rdispls.data(), MPI_INT, forced.comm(), forced.info(), &request),
            MPI_SUCCESS);
  int wrong = 0;
  for (int it = 0; it < n; ++it) {
    for (int i = 0; i < send_total; ++i) send[i] = it * 7919 + rank * 104729 + i;
    std::fill(recv, recv + recv_total, -1);
    ASSERT_EQ(MPIX_Start(request), MPI_SUCCESS);
    ASSERT_EQ(MPIX_Wait(request, MPI_STATUS_IGNORE), MPI_SUCCESS);
    MPI_Alltoallv(send, sendcounts.data(), sdispls.data(), MPI_INT, expected.data(), recvcounts.data(),
                  rdispls.data(), MPI_INT, MPI_COMM_WORLD);
    wrong += !std::equal(expected.begin(), expected.end(), recv);
  }
  EXPECT_EQ(wrong, 0) << "iterations with wrong data";
  EXPECT_EQ(MPIX_Request_free(&request), MPI_SUCCESS);
  MPIX_Free_mem(send);
  MPIX_Free_mem(recv);
}

// Buffers at every alignment inside a larger allocation, as a halo part of
// a vector is: MPICH 4.0.2 places a window over memory that is not 16-byte
// aligned at the address rounded down, so puts landed up to 15 bytes early
// (and outside the receive buffer). Bytes around the buffers stay untouched.
TEST_P(AlltoallvRma, BuffersAtAnyAlignmentDeliverAndWriteNothingOutside) {
  const int rank = world_rank(), size = world_size(), margin = 64;
  const Exchange x = make_exchange(symmetric_counts(size), rank, true, false);
  ForcedAlgorithm forced(GetParam());
  // Oversubscribed runs (a synchronization costs ~30 ms) check two offsets.
  const std::vector<int> offsets = world_size() <= 2 ? std::vector<int>{1, 8, 12, 24, 40} : std::vector<int>{1, 8};
  for (int offset : offsets) {
    std::vector<unsigned char> send_area(margin + x.send_elements * sizeof(int) + margin);
    std::vector<unsigned char> recv_area(margin + x.recv_elements * sizeof(int) + margin, poison);
    unsigned char* send = send_area.data() + offset;
    unsigned char* recv = recv_area.data() + offset;
    std::vector<unsigned char> expected(x.recv_elements * sizeof(int));
    MPIX_Request* request = nullptr;
    ASSERT_EQ(MPIX_Alltoallv_init(send, x.sendcounts.data(), x.sdispls.data(), MPI_INT, recv, x.recvcounts.data(),
                                  x.rdispls.data(), MPI_INT, forced.comm(), forced.info(), &request),
              MPI_SUCCESS);
    for (int it = 0; it < 3; ++it) {
      for (std::size_t i = 0; i < x.send_elements * sizeof(int); ++i)
        send[i] = static_cast<unsigned char>(it * 31 + rank * 7 + i);
      std::fill(recv_area.begin(), recv_area.end(), poison);
      std::fill(expected.begin(), expected.end(), poison);  // the gaps between blocks stay poison
      ASSERT_EQ(MPIX_Start(request), MPI_SUCCESS);
      ASSERT_EQ(MPIX_Wait(request, MPI_STATUS_IGNORE), MPI_SUCCESS);
      MPI_Alltoallv(send, x.sendcounts.data(), x.sdispls.data(), MPI_INT, expected.data(), x.recvcounts.data(),
                    x.rdispls.data(), MPI_INT, MPI_COMM_WORLD);
      EXPECT_TRUE(std::equal(expected.begin(), expected.end(), recv)) << "offset " << offset << ", iteration " << it;
      const auto untouched = [](unsigned char b) { return b == poison; };
      EXPECT_TRUE(std::all_of(recv_area.begin(), recv_area.begin() + offset, untouched)) << "offset " << offset;
      EXPECT_TRUE(std::all_of(recv + expected.size(), recv_area.data() + recv_area.size(), untouched))
          << "offset " << offset;
    }
    EXPECT_EQ(MPIX_Request_free(&request), MPI_SUCCESS);
  }
}

TEST_P(AlltoallvRma, TwoLiveRequestsOnOneCommunicatorStayApart) {
  const int n = iterations();
  Exchanged a(pattern_named("random_with_zeros"), n), b(pattern_named("skewed"), n);
  ForcedAlgorithm forced(GetParam());
  ASSERT_EQ(a.init(forced.comm(), forced.info()), MPI_SUCCESS);
  ASSERT_EQ(b.init(forced.comm(), forced.info()), MPI_SUCCESS);
  for (int it = 0; it < n; ++it) {
    a.fill(it);
    b.fill(it);
    MPIX_Request* both[2] = {a.request(), b.request()};
    ASSERT_EQ(MPIX_Startall(2, both), MPI_SUCCESS);
    ASSERT_EQ(MPIX_Waitall(2, both, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    EXPECT_EQ(a.wrong_byte(it), -1) << "request a, iteration " << it;
    EXPECT_EQ(b.wrong_byte(it), -1) << "request b, iteration " << it;
  }
  // Freeing one leaves the other working.
  ASSERT_EQ(MPIX_Request_free(&a.request()), MPI_SUCCESS);
  for (int it = 0; it < n; ++it) {
    b.fill(it);
    ASSERT_EQ(MPIX_Start(b.request()), MPI_SUCCESS);
    ASSERT_EQ(MPIX_Wait(b.request(), MPI_STATUS_IGNORE), MPI_SUCCESS);
    EXPECT_EQ(b.wrong_byte(it), -1) << "request b after freeing a, iteration " << it;
  }
}

TEST_P(AlltoallvRma, NewRequestOverANewBufferOfTheSameSizeWritesOnlyThere) {
  const int n = iterations();
  Exchanged first(pattern_named("uniform"), n), second(pattern_named("uniform"), n);
  ForcedAlgorithm forced(GetParam());
  ASSERT_EQ(first.init(forced.comm(), forced.info()), MPI_SUCCESS);
  first.fill(0);
  ASSERT_EQ(MPIX_Start(first.request()), MPI_SUCCESS);
  ASSERT_EQ(MPIX_Wait(first.request(), MPI_STATUS_IGNORE), MPI_SUCCESS);
  ASSERT_EQ(MPIX_Request_free(&first.request()), MPI_SUCCESS);
  const std::vector<unsigned char> first_after_free = first.recv();

  ASSERT_EQ(second.init(forced.comm(), forced.info()), MPI_SUCCESS);
  for (int it = 0; it < n; ++it) {
    second.fill(it);
    ASSERT_EQ(MPIX_Start(second.request()), MPI_SUCCESS);
    ASSERT_EQ(MPIX_Wait(second.request(), MPI_STATUS_IGNORE), MPI_SUCCESS);
    EXPECT_EQ(second.wrong_byte(it), -1) << "iteration " << it;
  }
  EXPECT_EQ(first_difference(first.recv(), first_after_free), -1) << "the freed request's buffer was written";
}

// The paper's code decided locally whether to reuse its window and
// deadlocked when only some ranks' buffers changed. Here: re-init over the
// same buffers (a pooled window on every rank), then a re-init in which only
// rank 0 keeps its buffer, then one in which rank 0's buffer grows.
TEST_P(AlltoallvRma, ReinitWhereOnlySomeRanksChangeTheirBufferAgrees) {
  const int n = iterations(), rank = world_rank();
  ForcedAlgorithm forced(GetParam());
  Exchanged same(pattern_named("uniform"), n), other(pattern_named("uniform"), n),
      grown(pattern_named("uniform"), n, rank == 0);
  auto run = [&](Exchanged& x, const char* what) {
    ASSERT_EQ(x.init(forced.comm(), forced.info()), MPI_SUCCESS) << what;
    for (int it = 0; it < n; ++it) {
      x.fill(it);
      ASSERT_EQ(MPIX_Start(x.request()), MPI_SUCCESS);
      ASSERT_EQ(MPIX_Wait(x.request(), MPI_STATUS_IGNORE), MPI_SUCCESS);
      EXPECT_EQ(x.wrong_byte(it), -1) << what << ", iteration " << it;
    }
    ASSERT_EQ(MPIX_Request_free(&x.request()), MPI_SUCCESS);
  };
  run(same, "first init");
  run(same, "re-init over the same buffers");
  run(rank == 0 ? same : other, "re-init where only rank 0 keeps its buffer");
  run(grown, "re-init where rank 0's buffer changes size");
}

INSTANTIATE_TEST_SUITE_P(Registry, AlltoallvRma, ::testing::ValuesIn(algorithm_settings()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return setting_test_name(info.param);
                         });

namespace {

using EntryPoint = int (*)(const void*, const int[], const int[], MPI_Datatype, void*, const int[], const int[],
                           MPI_Datatype, MPIX_Comm*, MPIX_Info*, MPIX_Request**);

void check_entry_point(EntryPoint init, const char* algorithm) {
  const int n = iterations();
  Exchanged x(pattern_named("gapped_reversed"), n);
  MPIX_Comm* comm = nullptr;
  ASSERT_EQ(MPIX_Comm_init(&comm, MPI_COMM_WORLD), MPI_SUCCESS);
  const Exchange& e = x.exchange();
  ASSERT_EQ(init(x.send().data(), e.sendcounts.data(), e.sdispls.data(), MPI_INT, x.recv().data(), e.recvcounts.data(),
                 e.rdispls.data(), MPI_INT, comm, nullptr, &x.request()),
            MPI_SUCCESS);
  expect_runs(x.request(), algorithm);
  for (int it = 0; it < n; ++it) {
    x.fill(it);
    ASSERT_EQ(MPIX_Start(x.request()), MPI_SUCCESS);
    ASSERT_EQ(MPIX_Wait(x.request(), MPI_STATUS_IGNORE), MPI_SUCCESS);
    EXPECT_EQ(x.wrong_byte(it), -1) << "iteration " << it;
  }
  ASSERT_EQ(MPIX_Request_free(&x.request()), MPI_SUCCESS);
  MPIX_Comm_free(&comm);
}

}  // namespace

TEST_F(MpiTest, PaperEntryPointsRunFenceAndLock) {
  check_entry_point(alltoallv_rma_winfence_init, "fence");
  check_entry_point(alltoallv_rma_lock_init, "lock");
}

// An algorithm that moves raw bytes refuses a non-contiguous type.
// When only one rank's type is (same type signature, another layout), every
// rank must still take the same decision: fall back together (the default
// MPIX_FALLBACK=warn), with the right data.
TEST_F(MpiTest, AnAlgorithmUnsupportedOnOneRankFallsBackOnEveryRank) {
  constexpr int k = 3;  // ints per peer
  const int p = world_size(), rank = world_rank();
  MPI_Datatype spaced = MPI_INT;  // rank 1: an int every 8 bytes
  if (rank == 1) {
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &spaced);
    MPI_Type_commit(&spaced);
  }
  const int stride = rank == 1 ? 2 : 1;
  std::vector<int> counts(p, k), displs(p), send(static_cast<std::size_t>(p * k * stride)), recv(p * k, -1),
      expected(p * k, -2);
  for (int i = 0; i < p; ++i) displs[i] = i * k;
  for (std::size_t i = 0; i < send.size(); ++i) send[i] = rank * 1000 + static_cast<int>(i);
  MPI_Alltoallv(send.data(), counts.data(), displs.data(), spaced, expected.data(), counts.data(), displs.data(),
                MPI_INT, MPI_COMM_WORLD);

  ForcedAlgorithm forced(first_with(mpix::capability::contiguous_types));
  MPIX_Request* request = nullptr;
  ASSERT_EQ(MPIX_Alltoallv_init(send.data(), counts.data(), displs.data(), spaced, recv.data(), counts.data(),
                                displs.data(), MPI_INT, forced.comm(), forced.info(), &request),
            MPI_SUCCESS);
  // The fallback, auto, leaves out every algorithm a rank refuses.
  EXPECT_TRUE(is_two_sided(algorithm_of(request))) << algorithm_of(request);
  ASSERT_EQ(MPIX_Start(request), MPI_SUCCESS);
  ASSERT_EQ(MPIX_Wait(request, MPI_STATUS_IGNORE), MPI_SUCCESS);
  EXPECT_EQ(recv, expected);
  EXPECT_EQ(MPIX_Request_free(&request), MPI_SUCCESS);
  if (rank == 1) MPI_Type_free(&spaced);
}

namespace {

// The node channel segments this process maps: what a re-init must not
// add to.
int channel_segments() {
  // A live channel holds no descriptor, only mappings: its own segment and
  // every node peer's, so a channel is node-size mappings here.
  int mappings = 0;
  std::ifstream maps("/proc/self/maps");
  for (std::string entry; std::getline(maps, entry);)
    if (entry.find("mpix-node-channel") != std::string::npos) ++mappings;
  return mappings / mpix_test::world_size();
}

}  // namespace

// A request's node channel goes back to its communicator when the request
// is freed: a re-init of the same exchange creates none (nor does one of
// another exchange, once a channel of its size was made), while two live
// requests hold two.
TEST_F(MpiTest, AReinitOfTheChannelAlgorithmCreatesNoNewChannel) {
  if (world_size() > 2) GTEST_SKIP() << "the count is per process; 2 ranks show it";
  Exchanged first(pattern_named("uniform"), 2), second(pattern_named("skewed"), 2);
  const std::string channel = first_with(mpix::capability::node_channel);
  ForcedAlgorithm forced(channel);
  int node_size = 0;
  MPIX_Comm_get_node(forced.comm(), nullptr, nullptr, &node_size, nullptr);
  if (node_size < 2) GTEST_SKIP() << "no node peer: no channel";
  const int before = channel_segments();
  ASSERT_EQ(second.init(forced.comm(), forced.info()), MPI_SUCCESS);
  ASSERT_EQ(MPIX_Request_free(&second.request()), MPI_SUCCESS);
  ASSERT_EQ(first.init(forced.comm(), forced.info()), MPI_SUCCESS);
  expect_runs(first.request(), channel);
  ASSERT_EQ(MPIX_Request_free(&first.request()), MPI_SUCCESS);
  const int made = channel_segments();
  EXPECT_GE(made, before + 1);
  for (int round = 0; round < 3; ++round)
    for (Exchanged* x : {&first, &second}) {
      ASSERT_EQ(x->init(forced.comm(), forced.info()), MPI_SUCCESS);
      for (int it = 0; it < 2; ++it) {
        x->fill(it);
        ASSERT_EQ(MPIX_Start(x->request()), MPI_SUCCESS);
        ASSERT_EQ(MPIX_Wait(x->request(), MPI_STATUS_IGNORE), MPI_SUCCESS);
        EXPECT_EQ(x->wrong_byte(it), -1) << "round " << round << ", iteration " << it;
      }
      EXPECT_EQ(channel_segments(), made) << "round " << round;
      ASSERT_EQ(MPIX_Request_free(&x->request()), MPI_SUCCESS);
    }
  ASSERT_EQ(first.init(forced.comm(), forced.info()), MPI_SUCCESS);
  ASSERT_EQ(second.init(forced.comm(), forced.info()), MPI_SUCCESS);
  EXPECT_EQ(channel_segments(), before + 2);
}

// MPIX_Start_with_buffers: with info mpix_buffers_move=true every iteration
// may name other buffers (two send/receive pairs in rotation, as FFT codes
// rotate their arrays, then six: more than an algorithm keeps set up), in
// place as well. An algorithm whose data path is
// bound to the buffers refuses at init (and the request falls back to auto,
// which picks among those that can move them).
TEST_P(AlltoallvRma, StartWithBuffersRotatesAmongBuffers) {
  const int rank = world_rank();
  for (bool in_place : {false, true}) {
    const Exchange x = make_exchange(symmetric_counts(world_size()), rank, true, false);
    const std::size_t bytes = std::max<std::size_t>(1, x.recv_elements) * sizeof(int);
    std::vector<std::vector<unsigned char>> sends(6, std::vector<unsigned char>(bytes)), recvs = sends;
    std::vector<unsigned char> expected(bytes);
    ForcedAlgorithm forced(GetParam());
    ASSERT_EQ(MPIX_Info_set(forced.info(), "mpix_buffers_move", "true"), MPI_SUCCESS);
    MPIX_Request* request = nullptr;
    const void* send0 = in_place ? MPI_IN_PLACE : sends[0].data();
    ASSERT_EQ(MPIX_Alltoallv_init(send0, x.recvcounts.data(), x.rdispls.data(), MPI_INT, recvs[0].data(),
                                  x.recvcounts.data(), x.rdispls.data(), MPI_INT, forced.comm(), forced.info(),
                                  &request),
              MPI_SUCCESS);
    const std::string running = algorithm_of(request);
    // An algorithm whose paths do not depend on the buffers' addresses on
    // this layout (the registry says which).
    int nodes = 0;
    MPIX_Comm_get_node(forced.comm(), nullptr, nullptr, nullptr, &nodes);
    ASSERT_NE(row_of(running), nullptr) << running;
    EXPECT_TRUE(row_of(running)->buffers_may_move(nodes)) << running;
    // And one that says its buffers may move runs when asked for (a
    // selector runs one of the others).
    const mpix::AlltoallvAlgorithm* asked = row_of(forced.algorithm());
    if (asked->buffers_may_move(nodes) && !asked->has(mpix::capability::selects))
      EXPECT_EQ(running, forced.algorithm());
    const int rotations = world_size() <= 2 ? 18 : 2;  // oversubscribed: a synchronization costs ~30 ms
    for (int it = 0; it < rotations; ++it) {
      const int pair = it < 6 ? it % 2 : it % 6;
      auto& send = sends[pair];
      auto& recv = recvs[(pair + 1) % 6];  // a different pair than the send's
      fill_send(in_place ? recv : send, it, rank);
      if (in_place) {
        expected = recv;
      } else {
        std::fill(recv.begin(), recv.end(), poison);
        std::fill(expected.begin(), expected.end(), poison);
      }
      const void* s = in_place ? MPI_IN_PLACE : send.data();
      ASSERT_EQ(MPIX_Start_with_buffers(request, s, recv.data()), MPI_SUCCESS);
      ASSERT_EQ(MPIX_Wait(request, MPI_STATUS_IGNORE), MPI_SUCCESS);
      MPI_Alltoallv(in_place ? MPI_IN_PLACE : send.data(), x.recvcounts.data(), x.rdispls.data(), MPI_INT,
                    expected.data(), x.recvcounts.data(), x.rdispls.data(), MPI_INT, MPI_COMM_WORLD);
      EXPECT_EQ(first_difference(recv, expected), -1) << (in_place ? "in place, " : "") << "iteration " << it;
    }
    // Misuse is reported, and the request stays usable.
    EXPECT_EQ(error_class(MPIX_Start_with_buffers(request, in_place ? sends[0].data() : MPI_IN_PLACE,
                                                  recvs[0].data())),
              MPI_ERR_BUFFER);
    EXPECT_EQ(MPIX_Request_free(&request), MPI_SUCCESS);
  }
}

TEST_P(AlltoallvRma, StartWithBuffersNeedsTheInfoKey) {
  const Exchange x = make_exchange(symmetric_counts(world_size()), world_rank(), false, false);
  std::vector<int> send(std::max<std::size_t>(1, x.send_elements)), recv(std::max<std::size_t>(1, x.recv_elements));
  ForcedAlgorithm forced(GetParam());
  MPIX_Request* request = nullptr;
  ASSERT_EQ(MPIX_Alltoallv_init(send.data(), x.sendcounts.data(), x.sdispls.data(), MPI_INT, recv.data(),
                                x.recvcounts.data(), x.rdispls.data(), MPI_INT, forced.comm(), forced.info(),
                                &request),
            MPI_SUCCESS);
  const int code = MPIX_Start_with_buffers(request, send.data(), recv.data());
  EXPECT_EQ(error_class(code), MPI_ERR_REQUEST);
  EXPECT_NE(error_message(code).find("mpix_buffers_move"), std::string::npos) << error_message(code);
  ASSERT_EQ(MPIX_Start(request), MPI_SUCCESS);  // still inactive and usable
  ASSERT_EQ(MPIX_Wait(request, MPI_STATUS_IGNORE), MPI_SUCCESS);
  EXPECT_EQ(MPIX_Request_free(&request), MPI_SUCCESS);
}
