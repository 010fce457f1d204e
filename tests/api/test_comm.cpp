// MPIX_Comm: duplication and the (real or emulated) node split.
#include <algorithm>
#include <vector>

#include "capi/handles.hpp"
#include "src/agree.hpp"
#include "src/comm.hpp"
#include "src/library.hpp"
#include "tests/mpi_test.hpp"

using mpix_test::MpiTest;
using mpix_test::world_rank;
using mpix_test::world_size;

namespace {

class CommSplit : public MpiTest, public ::testing::WithParamInterface<int> {};

// The configuration of a communicator cut into nodes of k ranks (0: the
// real nodes), built in code.
mpix::Config nodes_of(int k) {
  mpix::Config config;
  config.node_size = k;
  return config;
}

int comm_size(MPI_Comm c) {
  int n = 0;
  MPI_Comm_size(c, &n);
  return n;
}

}  // namespace

TEST_P(CommSplit, EmulatedNodesAreConsecutiveRanks) {
  const int k = GetParam();
  const int p = world_size(), r = world_rank();
  const mpix::Comm comm(MPI_COMM_WORLD, nodes_of(k));
  EXPECT_EQ(comm.rank(), r);
  EXPECT_EQ(comm.size(), p);
  EXPECT_EQ(comm.num_nodes(), (p + k - 1) / k);
  for (int q = 0; q < p; ++q) {
    EXPECT_EQ(comm.node_of(q), q / k) << "rank " << q;
    EXPECT_EQ(comm.node_rank_of(q), q % k) << "rank " << q;
    EXPECT_EQ(comm.same_node(q), q / k == r / k) << "rank " << q;
  }
  // The last node is smaller when k does not divide p.
  EXPECT_EQ(comm.node_size(), std::min(k, p - (r / k) * k));
  EXPECT_EQ(comm_size(comm.node()), comm.node_size());
  EXPECT_EQ(comm.user(), MPI_COMM_WORLD);
}

INSTANTIATE_TEST_SUITE_P(NodeSizes, CommSplit, ::testing::Values(1, 2, 3));

TEST_F(MpiTest, RealNodeHoldsEveryRankOfThisMachine) {
  const mpix::Comm comm(MPI_COMM_WORLD, nodes_of(0));
  EXPECT_EQ(comm.num_nodes(), 1);
  EXPECT_EQ(comm.node_size(), world_size());
  EXPECT_EQ(comm.node_rank(), world_rank());
}

// The library finds machines by a key of its own (host, boot, namespaces),
// not by MPI_Comm_split_type: its real nodes must be MPI's shared-memory
// groups, member for member.
TEST_F(MpiTest, RealNodesAreMpisSharedMemoryGroups) {
  const mpix::Comm comm(MPI_COMM_WORLD, nodes_of(0));
  MPI_Comm shared = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world_rank(), MPI_INFO_NULL, &shared);
  int first = world_rank();
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, shared);
  std::vector<int> first_of(world_size());
  MPI_Allgather(&first, 1, MPI_INT, first_of.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (int q = 0; q < world_size(); ++q)
    EXPECT_EQ(comm.same_node(q), first_of[q] == first) << "rank " << q;
  EXPECT_EQ(comm.node_size(), comm_size(shared));
  MPI_Comm_free(&shared);
}

TEST_F(MpiTest, EmulatedNodeLargerThanTheMachineStaysOneNode) {
  const mpix::Comm comm(MPI_COMM_WORLD, nodes_of(64));
  EXPECT_EQ(comm.num_nodes(), 1);
  EXPECT_EQ(comm.node_size(), world_size());
}

TEST_F(MpiTest, DuplicateIsPrivateAndCongruent) {
  const mpix::Comm comm(MPI_COMM_WORLD, nodes_of(0));
  int result = MPI_UNEQUAL;
  MPI_Comm_compare(comm.global(), MPI_COMM_WORLD, &result);
  EXPECT_EQ(result, MPI_CONGRUENT);
}

TEST_F(MpiTest, SubCommunicatorSplitsByItsOwnRanks) {
  // Odd and even world ranks in separate communicators.
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank() % 2, world_rank(), &half);
  {
    const mpix::Comm comm(half, nodes_of(1));
    EXPECT_EQ(comm.size(), comm_size(half));
    EXPECT_EQ(comm.num_nodes(), comm.size());
    EXPECT_EQ(comm.node_size(), 1);
  }
  MPI_Comm_free(&half);
}

// What MPIX_Comm_get_node reports for a communicator under configuration k
// (from the environment, or built in code).
void expect_node_split(MPIX_Comm* xcomm, int k) {
  int node = -1, node_rank = -1, node_size = -1, num_nodes = -1;
  EXPECT_EQ(MPIX_Comm_get_node(xcomm, &node, &node_rank, &node_size, &num_nodes), MPI_SUCCESS);
  const int p = world_size(), r = world_rank();
  const int expected_k = k == 0 ? p : k;
  EXPECT_EQ(node, r / expected_k);
  EXPECT_EQ(node_rank, r % expected_k);
  EXPECT_EQ(num_nodes, (p + expected_k - 1) / expected_k);
  EXPECT_EQ(node_size, std::min(expected_k, p - (r / expected_k) * expected_k));
  MPI_Comm dup = MPI_COMM_NULL;
  EXPECT_EQ(MPIX_Comm_get_comm(xcomm, &dup), MPI_SUCCESS);
  EXPECT_NE(dup, MPI_COMM_WORLD);
  EXPECT_EQ(MPIX_Comm_free(&xcomm), MPI_SUCCESS);
  EXPECT_EQ(xcomm, nullptr);
}

TEST_F(MpiTest, CApiReportsTheConfiguredNodeSplit) {
  // Registered once plainly and once with MPIX_NODE_SIZE=2 (see CMake).
  MPIX_Comm* xcomm = nullptr;
  ASSERT_EQ(MPIX_Comm_init(&xcomm, MPI_COMM_WORLD), MPI_SUCCESS);
  expect_node_split(xcomm, mpix::Library::get().config().node_size);
}

TEST_P(CommSplit, ACommunicatorRunsUnderTheConfigurationItWasBuiltWith) {
  expect_node_split(mpix::comm_init(MPI_COMM_WORLD, nodes_of(GetParam())), GetParam());
}

TEST_F(MpiTest, CommInitRejectsNullArguments) {
  MPIX_Comm* xcomm = nullptr;
  const int rc = MPIX_Comm_init(&xcomm, MPI_COMM_NULL);
  EXPECT_EQ(mpix_test::error_class(rc), MPI_ERR_COMM);
  EXPECT_NE(mpix_test::error_message(rc).find("MPI_COMM_NULL"), std::string::npos);
  EXPECT_EQ(mpix_test::error_class(MPIX_Comm_init(nullptr, MPI_COMM_WORLD)), MPI_ERR_ARG);
}

// An intercommunicator is the library's own MPI_ERR_COMM on every rank of
// both groups, before any collective MPI would reject on it.
TEST_F(MpiTest, CommInitRejectsAnIntercommunicatorOnEveryRank) {
  const int half = world_rank() % 2;
  MPI_Comm group = MPI_COMM_NULL, inter = MPI_COMM_NULL;
  ASSERT_EQ(MPI_Comm_split(MPI_COMM_WORLD, half, world_rank(), &group), MPI_SUCCESS);
  ASSERT_EQ(MPI_Intercomm_create(group, 0, MPI_COMM_WORLD, half == 0 ? 1 : 0, 7, &inter), MPI_SUCCESS);
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  MPIX_Comm* xcomm = nullptr;
  const int rc = MPIX_Comm_init(&xcomm, inter);
  EXPECT_EQ(mpix_test::error_class(rc), MPI_ERR_COMM);
  EXPECT_NE(mpix_test::error_message(rc).find("comm is an intercommunicator"), std::string::npos)
      << mpix_test::error_message(rc);
  EXPECT_EQ(xcomm, nullptr);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&group);
}

// A collective step that fails on several ranks: every rank reports the
// lowest failing rank's error, and a failing rank its own reason as well.
TEST_F(MpiTest, AgreedErrorsCarryEveryFailingRanksOwnReason) {
  try {
    mpix::agreed(MPI_COMM_WORLD, [] {
      throw mpix::Error(MPI_ERR_NO_MEM, "reason of rank " + std::to_string(world_rank()));
    });
    ADD_FAILURE() << "no error";
  } catch (const mpix::Error& e) {
    const std::string text = e.what();
    EXPECT_EQ(e.code(), MPI_ERR_NO_MEM);
    EXPECT_NE(text.find("on rank 0: reason of rank 0"), std::string::npos) << text;
    if (world_rank() > 0)
      EXPECT_NE(text.find("; on this rank: reason of rank " + std::to_string(world_rank())), std::string::npos)
          << text;
  }
}
