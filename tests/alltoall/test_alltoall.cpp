// Every registered Alltoall algorithm (forced through the info key; auto
// too) against MPI_Alltoall, the oracle: blocks of several sizes, send data
// that changes every iteration, receive buffers poisoned before each one,
// completion by MPIX_Wait and by MPIX_Test polling; MPI_IN_PLACE; a
// derived send type against a plain receive type; two live requests on one
// communicator; moving buffers where the algorithm allows them. New
// algorithms are covered by adding their registry row: the suite lists the
// registry. Also: bad input on one rank fails on every rank.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "collectives/alltoall/family.hpp"
#include "collectives/alltoall/node_aggregated.hpp"
#include "tests/mpi_test.hpp"

using namespace mpix_test;

namespace {

constexpr int poison = -7;

std::vector<std::string> alltoall_algorithm_names() { return names_of(mpix::alltoall_algorithms()); }

const mpix::AlltoallvAlgorithm* row_of(const std::string& name) {
  return mpix::find_row(mpix::alltoall_algorithms(), name);
}

std::string algorithm_of(const MPIX_Request* request) {
  char name[MPIX_MAX_OBJECT_NAME];
  int len = 0;
  MPIX_Request_get_algorithm(request, name, &len);
  return std::string(name, len);
}

// 6 on 2 ranks; oversubscribed runs pay milliseconds per synchronization.
int iterations() { return world_size() <= 2 ? 6 : 3; }

// Element i of the block from source to target in iteration it.
int value(int source, int target, int it, int i) { return source * 1000000 + target * 10000 + it * 100 + i % 97; }

class Alltoall : public MpiTest, public ::testing::WithParamInterface<std::string> {
 protected:
  void SetUp() override {
    MpiTest::SetUp();
    ASSERT_EQ(MPIX_Comm_init(&comm_, MPI_COMM_WORLD), MPI_SUCCESS);
    MPIX_Info_init(&info_);
    MPIX_Info_set(info_, "mpix_alltoall_algorithm", GetParam().c_str());
  }
  void TearDown() override {
    MPIX_Info_free(&info_);
    MPIX_Comm_free(&comm_);
    MpiTest::TearDown();
  }
  // The forced algorithm runs the request (auto: one of the others), or,
  // where it refuses these arguments, the fallback (auto) does.
  void expect_running(const MPIX_Request* request, bool may_refuse) {
    const std::string running = algorithm_of(request);
    const auto* row = row_of(GetParam());
    ASSERT_NE(row, nullptr);
    if (row->has(mpix::capability::selects) || may_refuse)
      EXPECT_NE(row_of(running), nullptr) << running;
    else
      EXPECT_EQ(running, GetParam());
  }
  void fill(std::vector<int>& send, int block, int it) const {
    const int p = world_size(), me = world_rank();
    for (int t = 0; t < p; ++t)
      for (int i = 0; i < block; ++i) send[static_cast<std::size_t>(t * block + i)] = value(me, t, it, i);
  }
  void expect_received(const std::vector<int>& recv, int block, int it) const {
    const int p = world_size(), me = world_rank();
    for (int s = 0; s < p; ++s)
      for (int i = 0; i < block; ++i)
        ASSERT_EQ(recv[static_cast<std::size_t>(s * block + i)], value(s, me, it, i))
            << GetParam() << ": block " << block << ", from rank " << s << ", element " << i << ", iteration " << it;
  }

  MPIX_Comm* comm_ = nullptr;
  MPIX_Info* info_ = nullptr;
};

TEST_P(Alltoall, MatchesMpiAlltoall) {
  const int p = world_size();
  for (int block : {0, 1, 7, 1000, 20000}) {
    std::vector<int> send(static_cast<std::size_t>(p * block) + 1), recv(send.size(), poison),
        oracle(send.size(), poison);
    MPIX_Request* request = nullptr;
    ASSERT_EQ(MPIX_Alltoall_init(send.data(), block, MPI_INT, recv.data(), block, MPI_INT, comm_, info_, &request),
              MPI_SUCCESS);
    expect_running(request, false);
    for (int it = 0; it < iterations(); ++it) {
      fill(send, block, it);
      std::fill(recv.begin(), recv.end(), poison);
      ASSERT_EQ(MPIX_Start(request), MPI_SUCCESS);
      complete(request, it);
      ASSERT_EQ(MPI_Alltoall(send.data(), block, MPI_INT, oracle.data(), block, MPI_INT, MPI_COMM_WORLD),
                MPI_SUCCESS);
      expect_received(recv, block, it);
      EXPECT_EQ(recv, oracle) << GetParam() << ", block " << block;
    }
    EXPECT_EQ(MPIX_Request_free(&request), MPI_SUCCESS);
  }
}

TEST_P(Alltoall, InPlaceMatchesMpiAlltoall) {
  const int p = world_size(), block = 5;
  std::vector<int> buffer(static_cast<std::size_t>(p * block)), oracle(buffer.size());
  MPIX_Request* request = nullptr;
  ASSERT_EQ(MPIX_Alltoall_init(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buffer.data(), block, MPI_INT, comm_, info_,
                               &request),
            MPI_SUCCESS);
  expect_running(request, false);
  for (int it = 0; it < iterations(); ++it) {
    fill(buffer, block, it);
    oracle = buffer;
    ASSERT_EQ(MPIX_Start(request), MPI_SUCCESS);
    complete(request, it);
    ASSERT_EQ(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, oracle.data(), block, MPI_INT, MPI_COMM_WORLD),
              MPI_SUCCESS);
    expect_received(buffer, block, it);
    EXPECT_EQ(buffer, oracle);
  }
  EXPECT_EQ(MPIX_Request_free(&request), MPI_SUCCESS);
}

// Every other int of a 2*block span, one element of a vector type per
// block, against block plain ints: the same signature, other extents.
// Algorithms that move raw bytes refuse it and the fallback runs.
TEST_P(Alltoall, DerivedSendTypeAgainstPlainReceiveType) {
  const int p = world_size(), me = world_rank(), block = 4;
  MPI_Datatype strided = MPI_DATATYPE_NULL, one_block = MPI_DATATYPE_NULL;
  MPI_Type_vector(block, 1, 2, MPI_INT, &strided);
  MPI_Type_create_resized(strided, 0, static_cast<MPI_Aint>(2 * block * sizeof(int)), &one_block);
  MPI_Type_commit(&one_block);
  std::vector<int> send(static_cast<std::size_t>(2 * p * block), poison), recv(static_cast<std::size_t>(p * block));
  MPIX_Request* request = nullptr;
  ASSERT_EQ(MPIX_Alltoall_init(send.data(), 1, one_block, recv.data(), block, MPI_INT, comm_, info_, &request),
            MPI_SUCCESS);
  expect_running(request, true);
  for (int it = 0; it < iterations(); ++it) {
    for (int t = 0; t < p; ++t)
      for (int i = 0; i < block; ++i) send[static_cast<std::size_t>(2 * (t * block + i))] = value(me, t, it, i);
    std::fill(recv.begin(), recv.end(), poison);
    ASSERT_EQ(MPIX_Start(request), MPI_SUCCESS);
    complete(request, it);
    expect_received(recv, block, it);
  }
  EXPECT_EQ(MPIX_Request_free(&request), MPI_SUCCESS);
  MPI_Type_free(&one_block);
  MPI_Type_free(&strided);
}

// Two live requests on one communicator, of different block sizes, started
// together (MPIX_Startall) and one after the other.
TEST_P(Alltoall, TwoLiveRequestsOnOneCommunicator) {
  const int p = world_size();
  const int blocks[2] = {3, 2000};
  std::vector<int> send[2], recv[2];
  MPIX_Request* requests[2] = {nullptr, nullptr};
  for (int r = 0; r < 2; ++r) {
    send[r].resize(static_cast<std::size_t>(p * blocks[r]));
    recv[r].resize(send[r].size());
    ASSERT_EQ(MPIX_Alltoall_init(send[r].data(), blocks[r], MPI_INT, recv[r].data(), blocks[r], MPI_INT, comm_,
                                 info_, &requests[r]),
              MPI_SUCCESS);
  }
  for (int it = 0; it < iterations(); ++it) {
    for (int r = 0; r < 2; ++r) {
      fill(send[r], blocks[r], it + r);
      std::fill(recv[r].begin(), recv[r].end(), poison);
    }
    if (it % 2 == 0) {
      ASSERT_EQ(MPIX_Startall(2, requests), MPI_SUCCESS);
      for (MPIX_Request* request : requests) ASSERT_EQ(MPIX_Wait(request, MPI_STATUS_IGNORE), MPI_SUCCESS);
    } else {
      for (MPIX_Request* request : requests) {
        ASSERT_EQ(MPIX_Start(request), MPI_SUCCESS);
        ASSERT_EQ(MPIX_Wait(request, MPI_STATUS_IGNORE), MPI_SUCCESS);
      }
    }
    for (int r = 0; r < 2; ++r) expect_received(recv[r], blocks[r], it + r);
  }
  for (MPIX_Request*& request : requests) EXPECT_EQ(MPIX_Request_free(&request), MPI_SUCCESS);
}

// Buffers that move between starts (mpix_buffers_move): two pairs in turn,
// as an FFT alternates its arrays. Algorithms that bind the buffers refuse
// and the fallback runs.
TEST_P(Alltoall, BuffersThatMove) {
  const int p = world_size(), block = 9;
  MPIX_Info_set(info_, "mpix_buffers_move", "true");
  std::vector<int> send[2], recv[2];
  for (int b = 0; b < 2; ++b) {
    send[b].resize(static_cast<std::size_t>(p * block));
    recv[b].resize(send[b].size());
  }
  MPIX_Request* request = nullptr;
  ASSERT_EQ(MPIX_Alltoall_init(send[0].data(), block, MPI_INT, recv[0].data(), block, MPI_INT, comm_, info_,
                               &request),
            MPI_SUCCESS);
  expect_running(request, true);
  for (int it = 0; it < 2 * iterations(); ++it) {
    const int b = it % 2;
    fill(send[b], block, it);
    std::fill(recv[b].begin(), recv[b].end(), poison);
    ASSERT_EQ(MPIX_Start_with_buffers(request, send[b].data(), recv[b].data()), MPI_SUCCESS);
    complete(request, it);
    expect_received(recv[b], block, it);
  }
  EXPECT_EQ(MPIX_Request_free(&request), MPI_SUCCESS);
}

INSTANTIATE_TEST_SUITE_P(Registry, Alltoall, ::testing::ValuesIn(alltoall_algorithm_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

class AlltoallErrors : public MpiTest {
 protected:
  void SetUp() override {
    MpiTest::SetUp();
    ASSERT_EQ(MPIX_Comm_init(&comm_, MPI_COMM_WORLD), MPI_SUCCESS);  // MPI_ERRORS_RETURN, as the world's
  }
  void TearDown() override {
    MPIX_Comm_free(&comm_);
    MpiTest::TearDown();
  }
  // Inits with my counts; every rank must fail with the same class, and no
  // request may be made.
  void expect_failure_everywhere(int sendcount, int recvcount, int expected_class, const std::string& words) {
    const int p = world_size();
    std::vector<int> send(static_cast<std::size_t>(p * 8)), recv(send.size());
    MPIX_Request* request = nullptr;
    const int rc =
        MPIX_Alltoall_init(send.data(), sendcount, MPI_INT, recv.data(), recvcount, MPI_INT, comm_, nullptr, &request);
    EXPECT_EQ(error_class(rc), expected_class) << error_message(rc);
    EXPECT_NE(error_message(rc).find(words), std::string::npos) << error_message(rc);
    EXPECT_EQ(request, nullptr);
    expect_mpi_error_string_is_the_message(rc);
  }

  // MPI's own MPI_Error_string gives the library's message for the code it
  // returned (cut to MPI_MAX_ERROR_STRING), wherever the MPI can add a code
  // to the code's class that reads back: always for the library's own
  // classes; for a class MPI defines, Open MPI can and MPICH 4.0 cannot
  // (there MPIX_Error_string alone has the message).
  static void expect_mpi_error_string_is_the_message(int rc) {
    if (error_class(rc) <= MPI_ERR_LASTCODE && !mpi_adds_codes_to(error_class(rc))) return;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    ASSERT_EQ(MPI_Error_string(rc, text, &len), MPI_SUCCESS);
    const std::string printed(text, static_cast<std::size_t>(len)), message = error_message(rc);
    EXPECT_NE(printed.find("MPIX_Alltoall_init"), std::string::npos) << printed;
    EXPECT_EQ(printed, message.substr(0, printed.size()));
  }
  static bool mpi_adds_codes_to(int error_class) {
    int code = MPI_SUCCESS, read_class = -1, len = 0;
    char text[MPI_MAX_ERROR_STRING];
    return MPI_Add_error_code(error_class, &code) == MPI_SUCCESS &&
           MPI_Add_error_string(code, "probe") == MPI_SUCCESS && MPI_Error_string(code, text, &len) == MPI_SUCCESS &&
           std::string(text, static_cast<std::size_t>(len)) == "probe" &&
           MPI_Error_class(code, &read_class) == MPI_SUCCESS && read_class == error_class;
  }

  MPIX_Comm* comm_ = nullptr;
};

TEST_F(AlltoallErrors, ANegativeCountOnOneRankFailsOnEveryRank) {
  const bool last = world_rank() == world_size() - 1;
  expect_failure_everywhere(last ? -1 : 2, 2, MPI_ERR_COUNT, "sendcount = -1 is negative");
}

// The named error of MPIX_Alltoall_init is the one MPI_Error_string prints
// (checked on every error above): here a negative count, of a class MPI
// defines, and MPI_Error_class gives MPI_ERR_COUNT. Registered at 2 ranks
// and more on MPICH and Open MPI.
TEST_F(AlltoallErrors, MpiErrorStringPrintsTheLibrarysMessage) {
  const bool last = world_rank() == world_size() - 1;
  expect_failure_everywhere(2, last ? -4 : 2, MPI_ERR_COUNT, "recvcount = -4 is negative");
}

TEST_F(AlltoallErrors, BlocksOfAnotherSizeOnOneRankFailOnEveryRank) {
  const bool last = world_rank() == world_size() - 1;
  expect_failure_everywhere(last ? 3 : 2, last ? 3 : 2, MPI_ERR_TRUNCATE, "every block must be of one size");
}

TEST_F(AlltoallErrors, InPlaceOnSomeRanksOnlyFailsOnEveryRank) {
  const int p = world_size();
  std::vector<int> send(static_cast<std::size_t>(p * 2)), recv(send.size());
  MPIX_Request* request = nullptr;
  const int rc = MPIX_Alltoall_init(world_rank() == 0 ? MPI_IN_PLACE : send.data(), 2, MPI_INT, recv.data(), 2,
                                    MPI_INT, comm_, nullptr, &request);
  EXPECT_EQ(error_class(rc), MPI_ERR_BUFFER) << error_message(rc);
  EXPECT_NE(error_message(rc).find("MPI_IN_PLACE"), std::string::npos) << error_message(rc);
  EXPECT_EQ(request, nullptr);
}

// auto judges the others against MPI's own call as the caller measured it
// (mpix_auto_mpi_period_ns, what the drop-in passes from the calls it
// passed through), and races MPI's call no more: at 1 ns nothing beats it,
// so MPI's call runs; at 1 s anything does. The data is MPI_Alltoall's
// either way.
class AutoAgainstAMeasuredMpiCall : public AlltoallErrors {};

TEST_F(AutoAgainstAMeasuredMpiCall, RunsMpisCallOnlyWhereNothingBeatsIt) {
  const int p = world_size(), block = 16, starts = 120;
  for (const char* period_ns : {"1", "1000000000"}) {
    MPIX_Info* info = nullptr;
    MPIX_Info_init(&info);
    MPIX_Info_set(info, "mpix_auto_mpi_period_ns", period_ns);
    std::vector<int> send(static_cast<std::size_t>(p * block)), recv(send.size()), oracle(send.size());
    MPIX_Request* request = nullptr;
    ASSERT_EQ(MPIX_Alltoall_init(send.data(), block, MPI_INT, recv.data(), block, MPI_INT, comm_, info, &request),
              MPI_SUCCESS);
    for (int it = 0; it < starts; ++it) {
      for (std::size_t i = 0; i < send.size(); ++i) send[i] = world_rank() * 7919 + static_cast<int>(i) * 31 + it;
      std::fill(recv.begin(), recv.end(), poison);
      ASSERT_EQ(MPIX_Start(request), MPI_SUCCESS);
      complete(request, it);
      MPI_Alltoall(send.data(), block, MPI_INT, oracle.data(), block, MPI_INT, MPI_COMM_WORLD);
      ASSERT_EQ(recv, oracle) << "MPI's call measured at " << period_ns << " ns, iteration " << it;
    }
    const auto* running = row_of(algorithm_of(request));
    ASSERT_NE(running, nullptr);
    EXPECT_EQ(running->has(mpix::capability::mpi_baseline), std::string(period_ns) == "1")
        << running->name << " runs with MPI's call measured at " << period_ns << " ns";
    EXPECT_EQ(MPIX_Request_free(&request), MPI_SUCCESS);
    MPIX_Info_free(&info);
  }
}

TEST_F(AutoAgainstAMeasuredMpiCall, ABadPeriodOnOneRankFailsOnEveryRank) {
  const int p = world_size();
  MPIX_Info* info = nullptr;
  MPIX_Info_init(&info);
  MPIX_Info_set(info, "mpix_auto_mpi_period_ns", world_rank() == p - 1 ? "-5" : "1000");
  std::vector<int> send(static_cast<std::size_t>(p * 4)), recv(send.size());
  MPIX_Request* request = nullptr;
  const int rc = MPIX_Alltoall_init(send.data(), 4, MPI_INT, recv.data(), 4, MPI_INT, comm_, info, &request);
  EXPECT_EQ(error_class(rc), MPI_ERR_INFO_VALUE) << error_message(rc);
  EXPECT_NE(error_message(rc).find("on rank " + std::to_string(p - 1) + ": info key mpix_auto_mpi_period_ns = '-5'"),
            std::string::npos)
      << error_message(rc);
  EXPECT_EQ(request, nullptr);
  MPIX_Info_free(&info);
}

// The caller's period stands for MPI's call only where its blocks are
// eager-sized, where MPI's trial would run cold; from 32 KiB blocks up MPI's
// call warms up as the others do, and the caller's calls (a pattern's first)
// may have run on cold pages: it is raced. Under MPIX_VERBOSE=1 (the
// alltoall.auto_mpi_period registration) the listing must say which; the
// data is checked either way.
TEST_F(AutoAgainstAMeasuredMpiCall, StandsForMpisCallOnlyWithEagerSizedBlocks) {
  const bool verbose = std::getenv("MPIX_VERBOSE") != nullptr && std::string(std::getenv("MPIX_VERBOSE")) == "1";
  const int p = world_size();
  for (const int block : {16, 8192}) {  // 64 B and 32 KiB of MPI_INT
    MPIX_Info* info = nullptr;
    MPIX_Info_init(&info);
    MPIX_Info_set(info, "mpix_auto_mpi_period_ns", "1000");
    std::vector<int> send(static_cast<std::size_t>(p) * block), recv(send.size()), oracle(send.size());
    MPIX_Request* request = nullptr;
    if (world_rank() == 0) ::testing::internal::CaptureStderr();
    const int rc = MPIX_Alltoall_init(send.data(), block, MPI_INT, recv.data(), block, MPI_INT, comm_, info, &request);
    const std::string log = world_rank() == 0 ? ::testing::internal::GetCapturedStderr() : "";
    MPIX_Info_free(&info);
    ASSERT_EQ(rc, MPI_SUCCESS);
    for (int it = 0; it < 3; ++it) {
      for (std::size_t i = 0; i < send.size(); ++i) send[i] = world_rank() * 7919 + static_cast<int>(i) * 31 + it;
      std::fill(recv.begin(), recv.end(), poison);
      ASSERT_EQ(MPIX_Start(request), MPI_SUCCESS);
      complete(request, it);
      MPI_Alltoall(send.data(), block, MPI_INT, oracle.data(), block, MPI_INT, MPI_COMM_WORLD);
      ASSERT_EQ(recv, oracle) << block << " ints, iteration " << it;
    }
    EXPECT_EQ(MPIX_Request_free(&request), MPI_SUCCESS);
    if (verbose && world_rank() == 0)
      EXPECT_EQ(log.find("measured by the caller: not raced") != std::string::npos, block == 16)
          << block << " ints a block:\n" << log;
  }
}

// MPIX_ALLTOALL_EXCLUDE keeps what it names out of auto's tournament.
// Registered (alltoall.exclude_all_but_mpi) with every candidate named but
// MPI's own call, auto runs MPI's call at every Start; registered
// (alltoall.exclude_unknown) with a name that is no candidate, init fails
// on every rank with MPIX_ERR_CONFIG naming it. The data is MPI_Alltoall's.
class AlltoallExclude : public AlltoallErrors {
 protected:
  static std::string excluded() {
    const char* value = std::getenv("MPIX_ALLTOALL_EXCLUDE");
    return value ? value : "";
  }
};

TEST_F(AlltoallExclude, AutoNeverRunsAnExcludedAlgorithm) {
  const std::string listed = "," + excluded() + ",";
  if (listed == ",," || listed.find(",no_such_algorithm,") != std::string::npos)
    GTEST_SKIP() << "needs MPIX_ALLTOALL_EXCLUDE naming candidates";
  const int p = world_size(), block = 16, starts = 150;
  std::vector<int> send(static_cast<std::size_t>(p * block)), recv(send.size()), oracle(send.size());
  MPIX_Request* request = nullptr;
  ASSERT_EQ(MPIX_Alltoall_init(send.data(), block, MPI_INT, recv.data(), block, MPI_INT, comm_, nullptr, &request),
            MPI_SUCCESS);
  for (int it = 0; it < starts; ++it) {
    for (std::size_t i = 0; i < send.size(); ++i) send[i] = world_rank() * 7919 + static_cast<int>(i) * 31 + it;
    std::fill(recv.begin(), recv.end(), poison);
    ASSERT_EQ(MPIX_Start(request), MPI_SUCCESS);
    const std::string running = algorithm_of(request);
    EXPECT_EQ(listed.find("," + running + ","), std::string::npos) << "auto ran " << running << " at Start " << it;
    complete(request, it);
    MPI_Alltoall(send.data(), block, MPI_INT, oracle.data(), block, MPI_INT, MPI_COMM_WORLD);
    ASSERT_EQ(recv, oracle) << "Start " << it;
  }
  EXPECT_EQ(MPIX_Request_free(&request), MPI_SUCCESS);
}

TEST_F(AlltoallExclude, AnUnknownNameFailsOnEveryRank) {
  if (("," + excluded() + ",").find(",no_such_algorithm,") == std::string::npos)
    GTEST_SKIP() << "needs MPIX_ALLTOALL_EXCLUDE naming no_such_algorithm";
  expect_failure_everywhere(2, 2, MPIX_ERR_CONFIG, "MPIX_ALLTOALL_EXCLUDE names 'no_such_algorithm'");
}

// node_aggregated does what it is for: for blocks of 8 B to 1 KiB a rank
// sends at most (nodes - 1) messages off its node per call (only a node's
// leader sends any), counted by the library where it sends them, and the
// data is MPI_Alltoall's. Meaningful with several (emulated) nodes:
// registered at 8 ranks with MPIX_NODE_SIZE=4 and 2.
class NodeAggregated : public AlltoallErrors {};  // a communicator, no forced algorithm

TEST_F(NodeAggregated, SendsOneMessagePerPairOfNodes) {
  int node = 0, node_rank = 0, node_size = 0, nodes = 0;
  ASSERT_EQ(MPIX_Comm_get_node(comm_, &node, &node_rank, &node_size, &nodes), MPI_SUCCESS);
  MPIX_Info* info = nullptr;
  MPIX_Info_init(&info);
  MPIX_Info_set(info, "mpix_alltoall_algorithm", "node_aggregated");
  const int p = world_size(), calls = 4;
  for (int block : {8, 64, 1024}) {
    std::vector<char> send(static_cast<std::size_t>(p * block)), recv(send.size()), oracle(send.size());
    MPIX_Request* request = nullptr;
    ASSERT_EQ(MPIX_Alltoall_init(send.data(), block, MPI_BYTE, recv.data(), block, MPI_BYTE, comm_, info, &request),
              MPI_SUCCESS);
    EXPECT_EQ(algorithm_of(request), "node_aggregated");
    const std::uint64_t before = mpix::node_aggregated_off_node_messages();
    for (int it = 0; it < calls; ++it) {
      for (std::size_t b = 0; b < send.size(); ++b)
        send[b] = static_cast<char>(world_rank() * 31 + static_cast<int>(b) * 7 + it);
      std::fill(recv.begin(), recv.end(), static_cast<char>(poison));
      ASSERT_EQ(MPIX_Start(request), MPI_SUCCESS);
      complete(request, it);
      MPI_Alltoall(send.data(), block, MPI_BYTE, oracle.data(), block, MPI_BYTE, MPI_COMM_WORLD);
      EXPECT_EQ(recv, oracle) << "block " << block << ", call " << it;
    }
    const std::uint64_t sent = mpix::node_aggregated_off_node_messages() - before;
    EXPECT_LE(sent, static_cast<std::uint64_t>(calls * (nodes - 1))) << "block " << block;
    if (node_rank != 0) EXPECT_EQ(sent, 0u) << "only leaders send off the node";
    if (node_rank == 0 && nodes > 1) EXPECT_EQ(sent, static_cast<std::uint64_t>(calls * (nodes - 1)));
    EXPECT_EQ(MPIX_Request_free(&request), MPI_SUCCESS);
  }
  MPIX_Info_free(&info);
}

}  // namespace
