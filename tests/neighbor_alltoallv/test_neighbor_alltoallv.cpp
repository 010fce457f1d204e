// Every registered neighbourhood Alltoallv algorithm on graphs of every
// shape (ring, random and asymmetric, empty in- or out-degree, duplicate
// edges, self-loops, no edges at all), against the values each edge must
// carry and against MPI_Neighbor_alltoallv, the oracle, with send data that
// changes every iteration and receive buffers poisoned before each one.
// New algorithms are covered by adding their registry row: the suites list
// the registry. Also: several live requests, bad input on one rank failing
// on every rank, auto settling, and sparse pattern discovery against an
// MPI_Alltoall of counts.
#include <unistd.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "collectives/neighbor_alltoallv/family.hpp"
#include "tests/mpi_test.hpp"
#include "tests/neighbor_alltoallv/neighbor_graph.hpp"

using namespace mpix_test;

namespace {

constexpr int poison = -7;

std::vector<std::string> neighbor_algorithm_names() { return names_of(mpix::neighbor_alltoallv_algorithms()); }

bool is_candidate(const std::string& name) {
  const auto* row = mpix::find_row(mpix::neighbor_alltoallv_algorithms(), name);
  return row != nullptr && !row->has(mpix::capability::selects);
}

std::string algorithm_of(const MPIX_Request* request) {
  char name[MPIX_MAX_OBJECT_NAME];
  int len = 0;
  MPIX_Request_get_algorithm(request, name, &len);
  return std::string(name, len);
}

// 30 on 2 ranks; oversubscribed runs pay milliseconds per synchronization.
int iterations() { return world_size() <= 2 ? 30 : 3; }

int value(int edge, int iteration, int i) { return edge * 100000 + iteration * 1000 + i % 997; }

// A graph communicator wrapped for the library, with an info that forces
// one algorithm (none: the default).
class GraphComm {
 public:
  GraphComm(MPI_Comm graph, const std::string& algorithm) : graph_(graph) {
    EXPECT_EQ(MPIX_Comm_init(&comm_, graph_), MPI_SUCCESS);
    MPIX_Info_init(&info_);
    if (!algorithm.empty()) MPIX_Info_set(info_, "mpix_neighbor_alltoallv_algorithm", algorithm.c_str());
  }
  ~GraphComm() {
    MPIX_Info_free(&info_);
    MPIX_Comm_free(&comm_);
    MPI_Comm_free(&graph_);
  }
  GraphComm(const GraphComm&) = delete;
  GraphComm& operator=(const GraphComm&) = delete;
  MPI_Comm graph() const { return graph_; }
  MPIX_Comm* comm() const { return comm_; }
  MPIX_Info* info() const { return info_; }

 private:
  MPI_Comm graph_;
  MPIX_Comm* comm_ = nullptr;
  MPIX_Info* info_ = nullptr;
};

int init(const RankView& v, const std::vector<int>& send, std::vector<int>& recv, const GraphComm& g,
         MPIX_Request** request) {
  return MPIX_Neighbor_alltoallv_init(send.data(), v.sendcounts.data(), v.sdispls.data(), MPI_INT, recv.data(),
                                      v.recvcounts.data(), v.rdispls.data(), MPI_INT, g.comm(), g.info(), request);
}

void fill(const RankView& v, std::vector<int>& send, int iteration) {
  std::fill(send.begin(), send.end(), poison);
  for (std::size_t k = 0; k < v.destinations.size(); ++k)
    for (int i = 0; i < v.sendcounts[k]; ++i) send[v.sdispls[k] + i] = value(v.out_edge[k], iteration, i);
}

// Every received element is its edge's, every gap still poison.
void expect_received(const RankView& v, const std::vector<int>& recv, int iteration) {
  std::vector<int> expected(recv.size(), poison);
  for (std::size_t k = 0; k < v.sources.size(); ++k)
    for (int i = 0; i < v.recvcounts[k]; ++i) expected[v.rdispls[k] + i] = value(v.in_edge[k], iteration, i);
  const auto wrong = std::mismatch(recv.begin(), recv.end(), expected.begin());
  EXPECT_TRUE(wrong.first == recv.end()) << "iteration " << iteration << ": element "
                                         << (wrong.first - recv.begin()) << " is " << *wrong.first << ", not "
                                         << *wrong.second;
}

// After iteration `iteration`: every element its edge's, and all of recv
// what MPI's own call delivers from the same send buffer (into oracle).
void expect_as_mpi(const RankView& v, const std::vector<int>& send, const std::vector<int>& recv,
                   std::vector<int>& oracle, MPI_Comm graph, int iteration) {
  expect_received(v, recv, iteration);
  std::fill(oracle.begin(), oracle.end(), poison);
  MPI_Neighbor_alltoallv(send.data(), v.sendcounts.data(), v.sdispls.data(), MPI_INT, oracle.data(),
                         v.recvcounts.data(), v.rdispls.data(), MPI_INT, graph);
  EXPECT_EQ(recv, oracle) << "iteration " << iteration;
}

using Params = std::tuple<std::string, std::size_t>;  // algorithm, graph

class NeighborOracle : public MpiTest, public ::testing::WithParamInterface<Params> {};

}  // namespace

TEST_P(NeighborOracle, EveryEdgeCarriesItsBlockAsMpiDoes) {
  const auto& [algorithm, graph_index] = GetParam();
  const std::vector<Edge> edges = graph_cases()[graph_index].edges(world_size());
  const RankView v = view_of(edges, world_rank());
  GraphComm g(adjacent_graph(v), algorithm);
  std::vector<int> send(std::max(1, v.send_elements)), recv(std::max(1, v.recv_elements)), oracle(recv.size());
  MPIX_Request* request = nullptr;
  const int rc = init(v, send, recv, g, &request);
  ASSERT_EQ(rc, MPI_SUCCESS) << error_message(rc);
  if (is_candidate(algorithm)) EXPECT_EQ(algorithm_of(request), algorithm);
  else EXPECT_TRUE(is_candidate(algorithm_of(request))) << algorithm_of(request);
  for (int it = 0; it < iterations() && !AnyRankFailed(); ++it) {
    fill(v, send, it);
    std::fill(recv.begin(), recv.end(), poison);
    ASSERT_EQ(MPIX_Start(request), MPI_SUCCESS);
    complete(request, it);
    expect_as_mpi(v, send, recv, oracle, g.graph(), it);
  }
  EXPECT_EQ(MPIX_Request_free(&request), MPI_SUCCESS);
}

INSTANTIATE_TEST_SUITE_P(Registry, NeighborOracle,
                         ::testing::Combine(::testing::ValuesIn(neighbor_algorithm_names()),
                                            ::testing::Range<std::size_t>(0, graph_cases().size())),
                         [](const ::testing::TestParamInfo<Params>& info) {
                           return std::get<0>(info.param) + "_" + graph_cases()[std::get<1>(info.param)].name;
                         });

// Element types other than MPI_INT on both sides: MPI_DOUBLE, and a send
// type whose extent differs from the receive type's (pairs of ints sent,
// ints received, and the reverse), so that a displacement scaled by the
// other side's extent lands elsewhere. On the ring and a random graph, as
// MPI's own call delivers them.
enum class TypeCase { doubles, pairs_to_ints, ints_to_pairs };
using TypeParams = std::tuple<std::string, TypeCase>;
class NeighborTypes : public MpiTest, public ::testing::WithParamInterface<TypeParams> {};

TEST_P(NeighborTypes, DeliverAsMpiDoes) {
  const auto& [algorithm, types] = GetParam();
  MPI_Datatype pair = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  // Per side: its datatype, and how many ints one of its elements is.
  const bool doubles = types == TypeCase::doubles;
  const MPI_Datatype send_type = doubles ? MPI_DOUBLE : types == TypeCase::pairs_to_ints ? pair : MPI_INT;
  const MPI_Datatype recv_type = doubles ? MPI_DOUBLE : types == TypeCase::ints_to_pairs ? pair : MPI_INT;
  const int send_ints = types == TypeCase::pairs_to_ints ? 2 : 1, recv_ints = types == TypeCase::ints_to_pairs ? 2 : 1;
  for (const char* graph_name : {"ring", "random_large"}) {
    const auto graph_case = std::find_if(graph_cases().begin(), graph_cases().end(),
                                         [&](const GraphCase& c) { return std::string(c.name) == graph_name; });
    RankView v = view_of(graph_case->edges(world_size()), world_rank());
    // Counts and displacements are in pairs on a pair side: an edge of c
    // ints carries c pairs (2c ints), so the int side counts twice as many.
    const int unit = std::max(send_ints, recv_ints);
    for (int& c : v.sendcounts) c *= unit / send_ints;
    for (int& d : v.sdispls) d *= unit / send_ints;
    for (int& c : v.recvcounts) c *= unit / recv_ints;
    for (int& d : v.rdispls) d *= unit / recv_ints;
    const std::size_t send_words = static_cast<std::size_t>(std::max(1, v.send_elements * unit)),
                      recv_words = static_cast<std::size_t>(std::max(1, v.recv_elements * unit));
    // Ints or doubles, one buffer type for both (the exchange moves bytes).
    std::vector<double> send_d(send_words), recv_d(recv_words), oracle_d(recv_words);
    std::vector<int> send_i(send_words), recv_i(recv_words), oracle_i(recv_words);
    void* send = doubles ? static_cast<void*>(send_d.data()) : send_i.data();
    void* recv = doubles ? static_cast<void*>(recv_d.data()) : recv_i.data();
    void* oracle = doubles ? static_cast<void*>(oracle_d.data()) : oracle_i.data();
    GraphComm g(adjacent_graph(v), algorithm);
    MPIX_Request* request = nullptr;
    const int rc = MPIX_Neighbor_alltoallv_init(send, v.sendcounts.data(), v.sdispls.data(), send_type, recv,
                                                v.recvcounts.data(), v.rdispls.data(), recv_type, g.comm(), g.info(),
                                                &request);
    ASSERT_EQ(rc, MPI_SUCCESS) << graph_name << ": " << error_message(rc);
    for (int it = 0; it < iterations() && !AnyRankFailed(); ++it) {
      for (std::size_t i = 0; i < send_words; ++i) {
        send_d[i] = world_rank() * 1e5 + it * 1e3 + static_cast<double>(i) + 0.25;
        send_i[i] = world_rank() * 100000 + it * 1000 + static_cast<int>(i);
      }
      std::fill(recv_d.begin(), recv_d.end(), -7.5);
      std::fill(recv_i.begin(), recv_i.end(), poison);
      std::fill(oracle_d.begin(), oracle_d.end(), -7.5);
      std::fill(oracle_i.begin(), oracle_i.end(), poison);
      ASSERT_EQ(MPIX_Start(request), MPI_SUCCESS);
      complete(request, it);
      MPI_Neighbor_alltoallv(send, v.sendcounts.data(), v.sdispls.data(), send_type, oracle, v.recvcounts.data(),
                             v.rdispls.data(), recv_type, g.graph());
      if (doubles)
        EXPECT_EQ(recv_d, oracle_d) << graph_name << ", iteration " << it;
      else
        EXPECT_EQ(recv_i, oracle_i) << graph_name << ", iteration " << it;
    }
    EXPECT_EQ(MPIX_Request_free(&request), MPI_SUCCESS);
  }
  MPI_Type_free(&pair);
}

INSTANTIATE_TEST_SUITE_P(Registry, NeighborTypes,
                         ::testing::Combine(::testing::ValuesIn(neighbor_algorithm_names()),
                                            ::testing::Values(TypeCase::doubles, TypeCase::pairs_to_ints,
                                                              TypeCase::ints_to_pairs)),
                         [](const ::testing::TestParamInfo<TypeParams>& info) {
                           const TypeCase t = std::get<1>(info.param);
                           return std::get<0>(info.param) + (t == TypeCase::doubles         ? "_doubles"
                                                             : t == TypeCase::pairs_to_ints ? "_pairs_to_ints"
                                                                                            : "_ints_to_pairs");
                         });

// MPI_Dist_graph_create, the general form: each rank names some edges of
// its own (here: its out-edges), and MPI decides the order in which
// MPI_Dist_graph_neighbors lists them. Counts depend on the pair only, so
// duplicates agree however MPI pairs them; MPI's own call is the oracle.
class NeighborGeneralGraph : public MpiTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(NeighborGeneralGraph, MatchesMpiOnAGraphMpiOrdered) {
  const int p = world_size(), me = world_rank();
  std::vector<int> mine;
  for (const Edge& e : random_edges(p, 23u, 0))
    if (e.from == me) mine.push_back(e.to);
  const int degree = static_cast<int>(mine.size());
  MPI_Comm graph = MPI_COMM_NULL;
  ASSERT_EQ(MPI_Dist_graph_create(MPI_COMM_WORLD, degree > 0 ? 1 : 0, &me, &degree, mine.data(), MPI_UNWEIGHTED,
                                  MPI_INFO_NULL, 0, &graph),
            MPI_SUCCESS);
  int indegree = 0, outdegree = 0, weighted = 0;
  MPI_Dist_graph_neighbors_count(graph, &indegree, &outdegree, &weighted);
  std::vector<int> sources(indegree), destinations(outdegree);
  MPI_Dist_graph_neighbors(graph, indegree, sources.data(), MPI_UNWEIGHTED, outdegree, destinations.data(),
                           MPI_UNWEIGHTED);
  const auto pair_count = [](int from, int to) { return 1 + (3 * from + 5 * to) % 11; };
  RankView v;
  for (int k = 0; k < outdegree; ++k) {
    v.destinations.push_back(destinations[k]);
    v.sendcounts.push_back(pair_count(me, destinations[k]));
    v.sdispls.push_back(v.send_elements);
    v.send_elements += v.sendcounts.back();
  }
  for (int k = 0; k < indegree; ++k) {
    v.sources.push_back(sources[k]);
    v.recvcounts.push_back(pair_count(sources[k], me));
    v.rdispls.push_back(v.recv_elements);
    v.recv_elements += v.recvcounts.back();
  }
  GraphComm g(graph, GetParam());
  std::vector<int> send(std::max(1, v.send_elements)), recv(std::max(1, v.recv_elements)), oracle(recv.size());
  MPIX_Request* request = nullptr;
  const int rc = init(v, send, recv, g, &request);
  ASSERT_EQ(rc, MPI_SUCCESS) << error_message(rc);
  for (int it = 0; it < iterations() && !AnyRankFailed(); ++it) {
    for (std::size_t i = 0; i < send.size(); ++i) send[i] = me * 100000 + it * 1000 + static_cast<int>(i);
    std::fill(recv.begin(), recv.end(), poison);
    ASSERT_EQ(MPIX_Start(request), MPI_SUCCESS);
    complete(request, it);
    std::fill(oracle.begin(), oracle.end(), poison);
    MPI_Neighbor_alltoallv(send.data(), v.sendcounts.data(), v.sdispls.data(), MPI_INT, oracle.data(),
                           v.recvcounts.data(), v.rdispls.data(), MPI_INT, g.graph());
    EXPECT_EQ(recv, oracle) << "iteration " << it;
  }
  EXPECT_EQ(MPIX_Request_free(&request), MPI_SUCCESS);
}

INSTANTIATE_TEST_SUITE_P(Registry, NeighborGeneralGraph, ::testing::ValuesIn(neighbor_algorithm_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// MPIX_Start_with_buffers with info mpix_buffers_move=true: every
// iteration names other buffers (two pairs in rotation, then six: more than
// a row keeps set up), on the graph with self-loops and duplicate edges and
// on the random one. A row that binds the buffers at init refuses (and
// falls back to auto, which runs one that can move them); one that says
// its buffers may move runs when asked for.
class NeighborMovingBuffers : public MpiTest, public ::testing::WithParamInterface<Params> {};

TEST_P(NeighborMovingBuffers, StartWithBuffersRotatesAmongBuffers) {
  const auto& [algorithm, graph_index] = GetParam();
  const RankView v = view_of(graph_cases()[graph_index].edges(world_size()), world_rank());
  GraphComm g(adjacent_graph(v), algorithm);
  ASSERT_EQ(MPIX_Info_set(g.info(), "mpix_buffers_move", "true"), MPI_SUCCESS);
  std::vector<std::vector<int>> sends(6, std::vector<int>(std::max(1, v.send_elements)));
  std::vector<std::vector<int>> recvs(6, std::vector<int>(std::max(1, v.recv_elements)));
  std::vector<int> oracle(recvs[0].size());
  MPIX_Request* request = nullptr;
  const int rc = init(v, sends[0], recvs[0], g, &request);
  ASSERT_EQ(rc, MPI_SUCCESS) << error_message(rc);
  int nodes = 0;
  MPIX_Comm_get_node(g.comm(), nullptr, nullptr, nullptr, &nodes);
  const auto* asked = mpix::find_row(mpix::neighbor_alltoallv_algorithms(), algorithm);
  const auto* running = mpix::find_row(mpix::neighbor_alltoallv_algorithms(), algorithm_of(request));
  ASSERT_NE(running, nullptr) << algorithm_of(request);
  EXPECT_TRUE(running->buffers_may_move(nodes)) << running->name;
  if (asked->buffers_may_move(nodes) && !asked->has(mpix::capability::selects))
    EXPECT_EQ(algorithm_of(request), algorithm);
  const int rotations = world_size() <= 2 ? 18 : 3;
  for (int it = 0; it < rotations && !AnyRankFailed(); ++it) {
    const int pair = it < 6 ? it % 2 : it % 6;
    std::vector<int>& send = sends[pair];
    std::vector<int>& recv = recvs[(pair + 1) % 6];  // a different pair than the send's
    fill(v, send, it);
    std::fill(recv.begin(), recv.end(), poison);
    ASSERT_EQ(MPIX_Start_with_buffers(request, send.data(), recv.data()), MPI_SUCCESS);
    complete(request, it);
    expect_as_mpi(v, send, recv, oracle, g.graph(), it);
  }
  // Misuse is reported, and the request stays usable.
  EXPECT_EQ(error_class(MPIX_Start_with_buffers(request, MPI_IN_PLACE, recvs[0].data())), MPI_ERR_BUFFER);
  ASSERT_EQ(MPIX_Start_with_buffers(request, sends[0].data(), recvs[0].data()), MPI_SUCCESS);
  ASSERT_EQ(MPIX_Wait(request, MPI_STATUS_IGNORE), MPI_SUCCESS);
  EXPECT_EQ(MPIX_Request_free(&request), MPI_SUCCESS);
}

std::size_t graph_named(const char* name) {
  for (std::size_t i = 0; i < graph_cases().size(); ++i)
    if (std::string(graph_cases()[i].name) == name) return i;
  return 0;
}

INSTANTIATE_TEST_SUITE_P(Registry, NeighborMovingBuffers,
                         ::testing::Combine(::testing::ValuesIn(neighbor_algorithm_names()),
                                            ::testing::Values(graph_named("self_loops_and_duplicates"),
                                                              graph_named("random_small"), graph_named("even_halo"))),
                         [](const ::testing::TestParamInfo<Params>& info) {
                           return std::get<0>(info.param) + "_" + graph_cases()[std::get<1>(info.param)].name;
                         });

namespace {

class NeighborRequests : public MpiTest {
 protected:
  // The ring, every rank's view, and the default algorithm.
  std::vector<Edge> edges_ = graph_cases()[0].edges(world_size());
  RankView v_ = view_of(edges_, world_rank());
};

}  // namespace

// Two live requests over one communicator, started together by
// MPIX_Startall, each delivering its own data; then auto settles on a
// candidate and stays correct.
TEST_F(NeighborRequests, SeveralLiveRequestsStartedTogether) {
  GraphComm g(adjacent_graph(v_), "");
  std::vector<int> send_a(v_.send_elements), recv_a(v_.recv_elements);
  std::vector<int> send_b(v_.send_elements), recv_b(v_.recv_elements);
  MPIX_Request* requests[2] = {nullptr, nullptr};
  ASSERT_EQ(init(v_, send_a, recv_a, g, &requests[0]), MPI_SUCCESS);
  ASSERT_EQ(init(v_, send_b, recv_b, g, &requests[1]), MPI_SUCCESS);
  const int rounds = world_size() <= 2 ? 200 : 5;
  int ever_settled[2] = {0, 0};  // a drift may re-run a tournament later: having settled once is the point
  for (int it = 0; it < rounds && !AnyRankFailed(); ++it) {
    fill(v_, send_a, it);
    fill(v_, send_b, it + 500);
    std::fill(recv_a.begin(), recv_a.end(), poison);
    std::fill(recv_b.begin(), recv_b.end(), poison);
    ASSERT_EQ(MPIX_Startall(2, requests), MPI_SUCCESS);
    ASSERT_EQ(MPIX_Wait(requests[1], MPI_STATUS_IGNORE), MPI_SUCCESS);
    ASSERT_EQ(MPIX_Wait(requests[0], MPI_STATUS_IGNORE), MPI_SUCCESS);
    expect_received(v_, recv_a, it);
    expect_received(v_, recv_b, it + 500);
    for (int i = 0; i < 2; ++i) {
      int settled = 0;
      EXPECT_EQ(MPIX_Request_is_settled(requests[i], &settled), MPI_SUCCESS);
      ever_settled[i] |= settled;
    }
  }
  for (int i = 0; i < 2; ++i) {
    EXPECT_TRUE(is_candidate(algorithm_of(requests[i]))) << algorithm_of(requests[i]);
    if (world_size() <= 2) EXPECT_EQ(ever_settled[i], 1) << "auto never settled in " << rounds << " iterations";
    EXPECT_EQ(MPIX_Request_free(&requests[i]), MPI_SUCCESS);
  }
}

// Bad input on one rank is the same error on every rank, naming it.
TEST_F(NeighborRequests, ACommunicatorWithoutAGraphFailsOnEveryRank) {
  MPIX_Comm* world = nullptr;
  ASSERT_EQ(MPIX_Comm_init(&world, MPI_COMM_WORLD), MPI_SUCCESS);
  std::vector<int> buffer(4), counts(world_size(), 1), displs(world_size(), 0);
  MPIX_Request* request = nullptr;
  const int rc = MPIX_Neighbor_alltoallv_init(buffer.data(), counts.data(), displs.data(), MPI_INT, buffer.data(),
                                              counts.data(), displs.data(), MPI_INT, world, nullptr, &request);
  EXPECT_EQ(error_class(rc), MPI_ERR_TOPOLOGY) << error_message(rc);
  EXPECT_NE(error_message(rc).find("distributed-graph"), std::string::npos) << error_message(rc);
  EXPECT_EQ(request, nullptr);
  MPIX_Comm_free(&world);
}

TEST_F(NeighborRequests, MpiInPlaceOnOneRankFailsOnEveryRank) {
  GraphComm g(adjacent_graph(v_), "");
  std::vector<int> send(v_.send_elements), recv(v_.recv_elements);
  MPIX_Request* request = nullptr;
  const int rc = MPIX_Neighbor_alltoallv_init(world_rank() == 0 ? MPI_IN_PLACE : send.data(), v_.sendcounts.data(),
                                              v_.sdispls.data(), MPI_INT, recv.data(), v_.recvcounts.data(),
                                              v_.rdispls.data(), MPI_INT, g.comm(), g.info(), &request);
  EXPECT_EQ(error_class(rc), MPI_ERR_BUFFER) << error_message(rc);
  EXPECT_NE(error_message(rc).find("MPI_IN_PLACE"), std::string::npos) << error_message(rc);
  EXPECT_NE(error_message(rc).find("rank 0"), std::string::npos) << error_message(rc);
  EXPECT_EQ(request, nullptr);
}

TEST_F(NeighborRequests, CountsThatDisagreeAcrossAnEdgeFailOnEveryRank) {
  GraphComm g(adjacent_graph(v_), "");
  RankView bad = v_;
  if (world_rank() == 0) bad.sendcounts[0] -= 1;  // rank 0 sends one element less on its first edge
  std::vector<int> send(v_.send_elements), recv(v_.recv_elements);
  MPIX_Request* request = nullptr;
  const int rc = init(bad, send, recv, g, &request);
  EXPECT_EQ(error_class(rc), MPI_ERR_TRUNCATE) << error_message(rc);
  EXPECT_NE(error_message(rc).find("rank 0 sends"), std::string::npos) << error_message(rc);
  EXPECT_EQ(request, nullptr);
}

namespace {

// The error every rank gets when one rank's argument is bad: its class, a
// message naming the argument and that rank, and no request.
void expect_error_naming(int rc, int error_class_expected, const std::string& text, int rank,
                         const MPIX_Request* request) {
  EXPECT_EQ(error_class(rc), error_class_expected) << error_message(rc);
  EXPECT_NE(error_message(rc).find(text), std::string::npos) << error_message(rc);
  EXPECT_NE(error_message(rc).find("rank " + std::to_string(rank)), std::string::npos) << error_message(rc);
  EXPECT_EQ(request, nullptr);
}

}  // namespace

TEST_F(NeighborRequests, ANegativeCountOnOneRankFailsOnEveryRank) {
  GraphComm g(adjacent_graph(v_), "");
  RankView bad = v_;
  const int last = world_size() - 1;
  if (world_rank() == last) bad.recvcounts[0] = -1;
  std::vector<int> send(v_.send_elements), recv(v_.recv_elements);
  MPIX_Request* request = nullptr;
  expect_error_naming(init(bad, send, recv, g, &request), MPI_ERR_COUNT, "recvcounts[0] = -1", last, request);
}

// auto's bound on its tournament (mpix_auto_settle, as the drop-in passes
// it) is agreed: a bad value on one rank fails on every rank, naming it.
TEST_F(NeighborRequests, ABadAutoSettleHintOnOneRankFailsOnEveryRank) {
  GraphComm g(adjacent_graph(v_), "auto");
  const int last = world_size() - 1;
  MPIX_Info_set(g.info(), "mpix_auto_settle", world_rank() == last ? "soon" : "50");
  std::vector<int> send(v_.send_elements), recv(v_.recv_elements);
  MPIX_Request* request = nullptr;
  expect_error_naming(init(v_, send, recv, g, &request), MPI_ERR_INFO_VALUE, "mpix_auto_settle = 'soon'", last,
                      request);
}

TEST_F(NeighborRequests, RanksAskingForDifferentAlgorithmsFailOnEveryRank) {
  const std::vector<std::string> names = neighbor_algorithm_names();
  GraphComm g(adjacent_graph(v_), world_rank() == 0 ? names.back() : names.front());
  std::vector<int> send(v_.send_elements), recv(v_.recv_elements);
  MPIX_Request* request = nullptr;
  const int rc = init(v_, send, recv, g, &request);
  EXPECT_EQ(error_class(rc), MPIX_Error_class_of(MPIX_ERRKIND_ALGORITHM)) << error_message(rc);
  EXPECT_NE(error_message(rc).find("different"), std::string::npos) << error_message(rc);
  EXPECT_EQ(request, nullptr);
}

TEST_F(NeighborRequests, AnUnknownAlgorithmFallsBackToTheDefault) {
  GraphComm g(adjacent_graph(v_), "no_such_algorithm");
  std::vector<int> send(v_.send_elements), recv(v_.recv_elements);
  MPIX_Request* request = nullptr;
  if (world_rank() == 0) ::testing::internal::CaptureStderr();
  ASSERT_EQ(init(v_, send, recv, g, &request), MPI_SUCCESS);
  const std::string log = world_rank() == 0 ? ::testing::internal::GetCapturedStderr() : "";
  if (world_rank() == 0) EXPECT_NE(log.find("no_such_algorithm"), std::string::npos) << log;
  EXPECT_TRUE(is_candidate(algorithm_of(request)));
  fill(v_, send, 3);
  std::fill(recv.begin(), recv.end(), poison);
  ASSERT_EQ(MPIX_Start(request), MPI_SUCCESS);
  ASSERT_EQ(MPIX_Wait(request, MPI_STATUS_IGNORE), MPI_SUCCESS);
  expect_received(v_, recv, 3);
  EXPECT_EQ(MPIX_Request_free(&request), MPI_SUCCESS);
}

// Sparse pattern discovery: every rank knows only its own out-edges; the
// graph found must be the one an MPI_Alltoall of counts reveals: per
// source, its edges to this rank, in its order, with their counts.
class SparseDiscovery : public MpiTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(SparseDiscovery, FindsTheSourcesAnAlltoallOfCountsFinds) {
  const int p = world_size(), me = world_rank();
  const std::vector<Edge> edges = graph_cases()[GetParam()].edges(p);
  const RankView v = view_of(edges, me);
  MPI_Comm graph = MPI_COMM_NULL;
  ASSERT_EQ(MPIX_Dist_graph_create_sparse(MPI_COMM_WORLD, static_cast<int>(v.destinations.size()),
                                          v.destinations.data(), v.sendcounts.data(), MPI_INFO_NULL, 0, &graph),
            MPI_SUCCESS);
  // The reference, O(P): how many edges I send each rank, then their counts.
  std::vector<int> edges_to(p, 0), edges_from(p);
  for (int d : v.destinations) ++edges_to[d];
  MPI_Alltoall(edges_to.data(), 1, MPI_INT, edges_from.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::vector<int> sdispls(p, 0), rdispls(p, 0);
  for (int r = 1; r < p; ++r) {
    sdispls[r] = sdispls[r - 1] + edges_to[r - 1];
    rdispls[r] = rdispls[r - 1] + edges_from[r - 1];
  }
  std::vector<int> outgoing(v.destinations.size()), filled(p, 0);
  for (std::size_t k = 0; k < v.destinations.size(); ++k)
    outgoing[sdispls[v.destinations[k]] + filled[v.destinations[k]]++] = v.sendcounts[k];
  const int incoming_total = rdispls[p - 1] + edges_from[p - 1];
  std::vector<int> incoming(std::max(1, incoming_total));
  MPI_Alltoallv(outgoing.data(), edges_to.data(), sdispls.data(), MPI_INT, incoming.data(), edges_from.data(),
                rdispls.data(), MPI_INT, MPI_COMM_WORLD);
  std::vector<int> expected_sources, expected_counts;
  for (int r = 0; r < p; ++r)
    for (int k = 0; k < edges_from[r]; ++k) {
      expected_sources.push_back(r);
      expected_counts.push_back(incoming[rdispls[r] + k]);
    }

  int indegree = 0, outdegree = 0, weighted = 0;
  ASSERT_EQ(MPI_Dist_graph_neighbors_count(graph, &indegree, &outdegree, &weighted), MPI_SUCCESS);
  std::vector<int> sources(indegree), source_weights(indegree), destinations(outdegree), destination_weights(outdegree);
  MPI_Dist_graph_neighbors(graph, indegree, sources.data(), source_weights.data(), outdegree, destinations.data(),
                           destination_weights.data());
  EXPECT_EQ(sources, expected_sources);
  EXPECT_EQ(source_weights, expected_counts);
  EXPECT_EQ(destinations, v.destinations);
  EXPECT_EQ(destination_weights, v.sendcounts);

  // The graph is ready for a halo exchange: the weights are the counts.
  RankView found;
  found.sources = sources;
  found.recvcounts = source_weights;
  found.destinations = destinations;
  found.sendcounts = destination_weights;
  for (int c : found.sendcounts) found.sdispls.push_back(found.send_elements), found.send_elements += c;
  for (int c : found.recvcounts) found.rdispls.push_back(found.recv_elements), found.recv_elements += c;
  GraphComm g(graph, "");
  std::vector<int> send(std::max(1, found.send_elements)), recv(std::max(1, found.recv_elements)), oracle(recv.size());
  for (std::size_t i = 0; i < send.size(); ++i) send[i] = me * 1000 + static_cast<int>(i);
  MPIX_Request* request = nullptr;
  ASSERT_EQ(init(found, send, recv, g, &request), MPI_SUCCESS);
  ASSERT_EQ(MPIX_Start(request), MPI_SUCCESS);
  ASSERT_EQ(MPIX_Wait(request, MPI_STATUS_IGNORE), MPI_SUCCESS);
  MPI_Neighbor_alltoallv(send.data(), found.sendcounts.data(), found.sdispls.data(), MPI_INT, oracle.data(),
                         found.recvcounts.data(), found.rdispls.data(), MPI_INT, g.graph());
  EXPECT_EQ(recv, oracle);
  EXPECT_EQ(MPIX_Request_free(&request), MPI_SUCCESS);
}

INSTANTIATE_TEST_SUITE_P(Graphs, SparseDiscovery, ::testing::Range<std::size_t>(0, graph_cases().size()),
                         [](const ::testing::TestParamInfo<std::size_t>& info) {
                           return std::string(graph_cases()[info.param].name);
                         });

// NBX's completion rests on synchronous sends: a rank enters the barrier
// only once its messages were received. Rank 0 starts late and is the only
// sender (three edges to every other rank): the others, with nothing to
// send, wait in the barrier before its messages come, and must still find
// every one. With buffered sends rank 0 would join the barrier at once, and
// a receiver whose barrier completes while a message is on its way would
// leave it unread (and a later discovery would find it).
TEST_F(NeighborRequests, DiscoveryWithALateSenderFindsEverySource) {
  const int p = world_size(), me = world_rank();
  std::vector<int> destinations, counts;
  if (me == 0)
    for (int r = 1; r < p; ++r)
      for (int k = 1; k <= 3; ++k) destinations.push_back(r), counts.push_back(10 * r + k);
  // Late by a little more each time: one of the rounds catches a receiver
  // whose barrier completes while a message is on its way.
  for (int round = 0; round < 40 && !AnyRankFailed(); ++round) {
    if (me == 0) usleep(static_cast<useconds_t>(200 * round));
    MPI_Comm graph = MPI_COMM_NULL;
    ASSERT_EQ(MPIX_Dist_graph_create_sparse(MPI_COMM_WORLD, static_cast<int>(destinations.size()),
                                            destinations.data(), counts.data(), MPI_INFO_NULL, 0, &graph),
              MPI_SUCCESS);
    int indegree = 0, outdegree = 0, weighted = 0;
    ASSERT_EQ(MPI_Dist_graph_neighbors_count(graph, &indegree, &outdegree, &weighted), MPI_SUCCESS);
    std::vector<int> sources(indegree), source_weights(indegree), destinations_found(outdegree), weights(outdegree);
    MPI_Dist_graph_neighbors(graph, indegree, sources.data(), source_weights.data(), outdegree,
                             destinations_found.data(), weights.data());
    const std::vector<int> expected_sources = me == 0 ? std::vector<int>{} : std::vector<int>{0, 0, 0};
    const std::vector<int> expected_counts =
        me == 0 ? std::vector<int>{} : std::vector<int>{10 * me + 1, 10 * me + 2, 10 * me + 3};
    EXPECT_EQ(sources, expected_sources);
    EXPECT_EQ(source_weights, expected_counts);
    EXPECT_EQ(destinations_found, destinations);
    MPI_Comm_free(&graph);
  }
}

TEST_F(NeighborRequests, DiscoveryWithABadDestinationFailsOnEveryRank) {
  const int last = world_size() - 1;
  const int destination = world_rank() == last ? world_size() : 0;
  const int count = 1;
  MPI_Comm graph = MPI_COMM_NULL;
  const int rc = MPIX_Dist_graph_create_sparse(MPI_COMM_WORLD, 1, &destination, &count, MPI_INFO_NULL, 0, &graph);
  EXPECT_EQ(error_class(rc), MPI_ERR_RANK) << error_message(rc);
  EXPECT_NE(error_message(rc).find("destinations[0]"), std::string::npos) << error_message(rc);
  EXPECT_NE(error_message(rc).find("rank " + std::to_string(last)), std::string::npos) << error_message(rc);
  EXPECT_EQ(graph, MPI_COMM_NULL);
}
