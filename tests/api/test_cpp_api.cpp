// The C++ interface (include/mpix/mpix.hpp): typed exchanges, move-only
// owners that free once, errors thrown on every rank of a collective.
#include <mpix/mpix.hpp>

#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "tests/mpi_test.hpp"

extern "C" int mpix_test_live_resources(void);

namespace {

using mpix_test::MpiTest;
using mpix_test::world_rank;
using mpix_test::world_size;

static_assert(!std::is_copy_constructible_v<mpix::Comm> && std::is_nothrow_move_constructible_v<mpix::Comm>);
static_assert(!std::is_copy_assignable_v<mpix::Alltoallv> && std::is_nothrow_move_assignable_v<mpix::Alltoallv>);
static_assert(!std::is_copy_constructible_v<mpix::Win> && !std::is_copy_constructible_v<mpix::Info>);
static_assert(!std::is_copy_assignable_v<mpix::NeighborAlltoallv> &&
              std::is_nothrow_move_assignable_v<mpix::NeighborAlltoallv>);

// Every family of the table has mpix::Persistent over its C init, made from
// that init's own parameters (the row's), then a Comm: no line of its own.
template <auto Init, class... P>
constexpr bool made_from(void (*)(P...)) {
  return std::is_constructible_v<mpix::Persistent<Init>, P..., const mpix::Comm&> &&
         std::is_constructible_v<mpix::Persistent<Init>, P..., const mpix::Comm&, const mpix::Info*>;
}
#define MPIX_FAMILY(folder, Name, rows_namespace, parameters, names) \
  static_assert(made_from<MPIX_##Name##_init>(static_cast<void(*) parameters>(nullptr)), #Name);
#include "collectives/families.def"
#undef MPIX_FAMILY
// The typed classes keep the C arguments' constructor.
static_assert(std::is_constructible_v<mpix::Alltoall, const void*, int, MPI_Datatype, void*, int, MPI_Datatype,
                                      const mpix::Comm&>);

// Uniform blocks of `block` elements: element k of the block from s to r is
// value(s, r, k, iteration).
template <class T>
T value(int source, int target, int k, int iteration) {
  const int v = 1000 * iteration + 100 * source + 10 * target + k % 10;
  if constexpr (std::is_same_v<T, std::complex<double>> || std::is_same_v<T, std::complex<float>>)
    return T(static_cast<typename T::value_type>(v), static_cast<typename T::value_type>(-v));
  else
    return static_cast<T>(v);
}

struct Blocks {
  std::vector<int> counts, displs;
  explicit Blocks(int block) : counts(world_size(), block), displs(world_size()) {
    for (int i = 0; i < world_size(); ++i) displs[i] = i * block;
  }
};

// Several iterations of a typed exchange through vectors, the data checked.
template <class T, class Alloc = std::allocator<T>>
void exchange_and_check(const mpix::Comm& comm, const mpix::Info* info) {
  const int p = world_size(), me = world_rank(), block = 5;
  const Blocks b(block);
  std::vector<T, Alloc> send(p * block), recv(p * block);
  mpix::Alltoallv exchange(send, b.counts, b.displs, recv, b.counts, b.displs, comm, info);
  EXPECT_FALSE(exchange.algorithm().empty());
  for (int it = 0; it < 4; ++it) {
    for (int t = 0; t < p; ++t)
      for (int k = 0; k < block; ++k) send[t * block + k] = value<T>(me, t, k, it);
    exchange.start();
    if (it % 2) {
      while (!exchange.test()) {
      }
    } else {
      exchange.wait();
    }
    for (int s = 0; s < p; ++s)
      for (int k = 0; k < block; ++k) EXPECT_EQ(recv[s * block + k], value<T>(s, me, k, it)) << "from " << s;
  }
}

class CppApi : public MpiTest {};

TEST_F(CppApi, DatatypesAreDeduced) {
  EXPECT_EQ(mpix::datatype<double>(), MPI_DOUBLE);
  EXPECT_EQ(mpix::datatype<const int>(), MPI_INT);
  EXPECT_EQ(mpix::datatype<std::int64_t>(), sizeof(long) == 8 ? MPI_LONG : MPI_LONG_LONG);
  EXPECT_EQ(mpix::datatype<std::complex<double>>(), MPI_CXX_DOUBLE_COMPLEX);
  EXPECT_EQ(mpix::datatype<std::complex<float>>(), MPI_CXX_FLOAT_COMPLEX);
  EXPECT_EQ(mpix::datatype<unsigned char>(), MPI_UNSIGNED_CHAR);
}

TEST_F(CppApi, TypedExchangesDeliverTheData) {
  const mpix::Comm comm(MPI_COMM_WORLD);
  EXPECT_EQ(comm.size(), world_size());
  EXPECT_EQ(comm.rank(), world_rank());
  const mpix::NodeLayout layout = comm.node_layout();
  EXPECT_GE(layout.node_size, 1);
  EXPECT_GE(layout.num_nodes, 1);
  exchange_and_check<double>(comm, nullptr);
  exchange_and_check<int>(comm, nullptr);
  exchange_and_check<std::complex<double>>(comm, nullptr);
  exchange_and_check<float, mpix::allocator<float>>(comm, nullptr);  // MPIX_Alloc_mem buffers
}

TEST_F(CppApi, EveryRegisteredAlgorithmCanBeForcedThroughInfo) {
  const mpix::Comm comm(MPI_COMM_WORLD);
  // Every registered algorithm, through the public listing, but a selector,
  // which reports the algorithm it chose rather than its own name.
  const std::vector<mpix::AlgorithmInfo> rows = mpix::alltoallv_algorithms();
  EXPECT_GE(rows.size(), 2u);
  for (const mpix::AlgorithmInfo& row : rows) {
    if (row.has(MPIX_ALGORITHM_SELECTS)) continue;
    const std::string& name = row.name;
    mpix::Info info;
    info.set("mpix_alltoallv_algorithm", name);
    ASSERT_EQ(info.get("mpix_alltoallv_algorithm").value_or(""), name);
    EXPECT_FALSE(info.get("no_such_key").has_value());
    const int p = world_size(), me = world_rank();
    const Blocks b(3);
    std::vector<long> send(3 * p), recv(3 * p);
    mpix::Alltoallv exchange(send.data(), b.counts, b.displs, recv.data(), b.counts, b.displs, comm, &info);
    EXPECT_EQ(exchange.algorithm(), name);
    for (int t = 0; t < 3 * p; ++t) send[t] = value<long>(me, t / 3, t % 3, 0);
    exchange.start();
    exchange.wait();
    for (int s = 0; s < 3 * p; ++s) EXPECT_EQ(recv[s], value<long>(s / 3, me, s % 3, 0)) << name;
  }
}

// A family's generic request, from the C call's own arguments, in C's order.
TEST_F(CppApi, PersistentOverAFamilysInitTakesTheCArguments) {
  const mpix::Comm comm(MPI_COMM_WORLD);
  const int n = world_size(), block = 3;
  std::vector<int> send(n * block), recv(n * block, -1), expected(n * block, -2);
  mpix::Persistent<MPIX_Alltoall_init> exchange(send.data(), block, MPI_INT, recv.data(), block, MPI_INT, comm);
  bool same = true;
  for (int iteration = 0; iteration < 3; ++iteration) {
    for (int i = 0; i < n * block; ++i) send[i] = value<int>(world_rank(), i / block, i, iteration);
    exchange.start();
    exchange.wait();
    MPI_Alltoall(send.data(), block, MPI_INT, expected.data(), block, MPI_INT, MPI_COMM_WORLD);
    same = same && recv == expected;
  }
  EXPECT_TRUE(same) << "mpix::Persistent<MPIX_Alltoall_init> differs from MPI_Alltoall";
  EXPECT_FALSE(exchange.algorithm().empty());
}

TEST_F(CppApi, MovedFromOwnersFreeNothingAndMovesFreeOnce) {
  const int before = mpix_test_live_resources();
  {
    mpix::Comm a(MPI_COMM_WORLD);
    const int with_comm = mpix_test_live_resources();
    mpix::Comm b(std::move(a));
    EXPECT_EQ(a.handle(), nullptr);
    EXPECT_NE(b.handle(), nullptr);
    EXPECT_EQ(mpix_test_live_resources(), with_comm) << "a move creates nothing";
    const Blocks blocks(2);
    std::vector<int> s1(2 * world_size()), r1(s1.size()), s2(s1.size()), r2(s1.size());
    mpix::Alltoallv x(s1, blocks.counts, blocks.displs, r1, blocks.counts, blocks.displs, b);
    const int per_request = mpix_test_live_resources() - with_comm;
    EXPECT_GT(per_request, 0);
    mpix::Alltoallv y(s2, blocks.counts, blocks.displs, r2, blocks.counts, blocks.displs, b);
    MPIX_Request* const y_handle = y.handle();
    x = std::move(y);  // frees x's request (collective, on every rank alike), takes y's
    EXPECT_EQ(y.handle(), nullptr);
    EXPECT_EQ(x.handle(), y_handle);
    EXPECT_EQ(mpix_test_live_resources(), with_comm + per_request) << "move-assignment frees the old request";
    mpix::Alltoallv z(std::move(x));
    EXPECT_EQ(x.handle(), nullptr);
    z.start();
    z.wait();
    mpix::Info info;
    mpix::Info info2(std::move(info));
    EXPECT_EQ(info.handle(), nullptr);
    mpix::Win w = mpix::Win::allocate<double>(8, b);
    const int with_all = mpix_test_live_resources();
    mpix::Win w2(std::move(w));
    EXPECT_EQ(w.handle(), nullptr);
    EXPECT_EQ(w.base<double>(), nullptr);
    EXPECT_NE(w2.base<double>(), nullptr);
    EXPECT_EQ(mpix_test_live_resources(), with_all);
    z.free();
    EXPECT_EQ(z.handle(), nullptr);
    EXPECT_EQ(mpix_test_live_resources(), with_all - per_request);
    z.free();  // a second free of an empty owner is nothing
  }
  EXPECT_EQ(mpix_test_live_resources(), before) << "the moved-from owners' destructors freed nothing twice";
}

TEST_F(CppApi, AnArgumentErrorOnOneRankIsThrownOnEveryRank) {
  const mpix::Comm comm(MPI_COMM_WORLD);
  const int p = world_size(), me = world_rank();
  Blocks b(2);
  std::vector<int> send(2 * p), recv(2 * p);
  if (me == p - 1) b.counts[0] = -1;  // sendcounts and recvcounts alike: a negative count on the last rank
  int code = MPI_SUCCESS;
  std::string message;
  try {
    mpix::Alltoallv exchange(send.data(), b.counts, b.displs, recv.data(), b.counts, b.displs, comm);
  } catch (const mpix::Error& e) {
    code = e.error_class();
    message = e.what();
  }
  EXPECT_EQ(code, MPI_ERR_COUNT);
  EXPECT_NE(message.find("rank " + std::to_string(p - 1)), std::string::npos) << message;

  // A vector shorter than its counts reach, on one rank only: every rank throws.
  const Blocks good(2);
  std::vector<int> short_recv(me == 0 ? 1 : 2 * p);
  code = MPI_SUCCESS;
  try {
    mpix::Alltoallv exchange(send, good.counts, good.displs, short_recv, good.counts, good.displs, comm);
  } catch (const mpix::Error& e) {
    code = e.error_class();
    message = e.what();
  }
  EXPECT_EQ(code, MPI_ERR_ARG);
  EXPECT_NE(message.find("on rank 0"), std::string::npos) << message;

  // The communicator is still usable.
  std::vector<int> recv2(2 * p);
  mpix::Alltoallv exchange(send, good.counts, good.displs, recv2, good.counts, good.displs, comm);
  for (int t = 0; t < 2 * p; ++t) send[t] = value<int>(me, t / 2, t % 2, 7);
  exchange.start();
  exchange.wait();
  for (int s = 0; s < 2 * p; ++s) EXPECT_EQ(recv2[s], value<int>(s / 2, me, s % 2, 7));
}

// mpix::Alltoall through vectors, with every registered Alltoall algorithm
// forced through info, the data checked; a vector too short on one rank
// throws on every rank.
TEST_F(CppApi, AlltoallExchangesDeliverTheDataWithEveryAlgorithm) {
  const mpix::Comm comm(MPI_COMM_WORLD);
  const int p = world_size(), me = world_rank(), block = 4;
  std::vector<float> send(static_cast<std::size_t>(p * block)), recv(send.size());
  for (const mpix::AlgorithmInfo& row : mpix::alltoall_algorithms()) {
    mpix::Info info;
    info.set("mpix_alltoall_algorithm", row.name);
    mpix::Alltoall exchange(send, block, recv, block, comm, &info);
    if (!row.has(MPIX_ALGORITHM_SELECTS)) {
      EXPECT_EQ(exchange.algorithm(), row.name);
    }
    for (int it = 0; it < 3; ++it) {
      for (int t = 0; t < p * block; ++t)
        send[static_cast<std::size_t>(t)] = value<float>(me, t / block, t % block, it);
      exchange.start();
      exchange.wait();
      for (int s = 0; s < p * block; ++s)
        EXPECT_EQ(recv[static_cast<std::size_t>(s)], value<float>(s / block, me, s % block, it)) << row.name;
    }
  }
  std::vector<float> short_recv(me == 0 ? 1 : recv.size());
  int code = MPI_SUCCESS;
  std::string message;
  try {
    mpix::Alltoall exchange(send, block, short_recv, block, comm);
  } catch (const mpix::Error& e) {
    code = e.error_class();
    message = e.what();
  }
  EXPECT_EQ(code, MPI_ERR_ARG);
  EXPECT_NE(message.find("on rank 0"), std::string::npos) << message;
}

// A ring in both directions (edges to the left and right neighbours; at 2
// ranks a pair of duplicate edges), through mpix::NeighborAlltoallv, with
// every registered neighbourhood algorithm forced through info.
TEST_F(CppApi, NeighbourhoodExchangesDeliverTheDataWithEveryAlgorithm) {
  const int p = world_size(), me = world_rank(), block = 3;
  const int left = (me + p - 1) % p, right = (me + 1) % p;
  const int peers[2] = {left, right};
  MPI_Comm ring = MPI_COMM_NULL;
  ASSERT_EQ(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, peers, MPI_UNWEIGHTED, 2, peers, MPI_UNWEIGHTED,
                                           MPI_INFO_NULL, 0, &ring),
            MPI_SUCCESS);
  MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN);
  {
    const mpix::Comm comm(ring);
    const std::vector<int> counts(2, block), displs = {0, block};
    std::vector<double> send(2 * block), recv(2 * block);
    const std::vector<mpix::AlgorithmInfo> rows = mpix::neighbor_alltoallv_algorithms();
    EXPECT_GE(rows.size(), 2u);
    for (const mpix::AlgorithmInfo& row : rows) {
      mpix::Info info;
      info.set("mpix_neighbor_alltoallv_algorithm", row.name);
      mpix::NeighborAlltoallv exchange(send, counts, displs, recv, counts, displs, comm, &info);
      if (!row.has(MPIX_ALGORITHM_SELECTS)) {
      EXPECT_EQ(exchange.algorithm(), row.name);
    }
      for (int it = 0; it < 3; ++it) {
        // Edge e of mine goes to peers[e]; its block carries (me, edge).
        for (int e = 0; e < 2; ++e)
          for (int k = 0; k < block; ++k) send[e * block + k] = value<double>(me, e, k, it);
        exchange.start();
        exchange.wait();
        // My source edge 0 is left's edge 1 (to its right), source edge 1
        // right's edge 0; at 2 ranks both are the other rank's, in order.
        for (int e = 0; e < 2; ++e)
          for (int k = 0; k < block; ++k)
            EXPECT_EQ(recv[e * block + k], value<double>(peers[e], p <= 2 ? e : 1 - e, k, it)) << row.name;
      }
    }
    // Arrays shorter than the degree on one rank: every rank throws.
    const std::vector<int> short_counts(me == 0 ? 1 : 2, block);
    int code = MPI_SUCCESS;
    std::string message;
    try {
      mpix::NeighborAlltoallv exchange(send, short_counts, displs, recv, counts, displs, comm);
    } catch (const mpix::Error& e) {
      code = e.error_class();
      message = e.what();
    }
    EXPECT_EQ(code, MPI_ERR_ARG);
    EXPECT_NE(message.find("on rank 0"), std::string::npos) << message;
  }
  MPI_Comm_free(&ring);
}

TEST_F(CppApi, WindowsPutAndGetTypedElements) {
  const mpix::Comm comm(MPI_COMM_WORLD);
  const int p = world_size(), me = world_rank();
  mpix::Win win = mpix::Win::allocate<double>(p, comm);
  for (int i = 0; i < p; ++i) win.base<double>()[i] = -1.0;
  win.fence();
  const double mine = 10.0 * me;
  for (int t = 0; t < p; ++t) win.put(&mine, 1, t, me);  // my value into slot `me` of every rank
  win.fence();
  for (int s = 0; s < p; ++s) EXPECT_EQ(win.base<double>()[s], 10.0 * s);
  std::vector<double> got(p);
  win.lock_all();
  for (int t = 0; t < p; ++t) win.get(&got[t], 1, t, t);  // slot t of rank t: t's own value
  win.flush_all();
  win.unlock_all();
  for (int t = 0; t < p; ++t) EXPECT_EQ(got[t], 10.0 * t);
  EXPECT_TRUE(win.info().get("mpi_win_order").has_value());

  std::vector<int> exposed(4, me);
  mpix::Win created = mpix::Win::create(exposed.data(), 4, comm);
  EXPECT_EQ(created.base<int>(), exposed.data());
  created.fence();
  created.free();
  EXPECT_EQ(created.handle(), nullptr);
}

TEST_F(CppApi, ErrorsOfLocalCallsCarryTheCodeAndMessage) {
  mpix::Info info;
  int code = MPI_SUCCESS;
  std::string message;
  try {
    info.set("", "value");
  } catch (const mpix::Error& e) {
    code = e.code();
    message = e.what();
  }
  EXPECT_NE(code, MPI_SUCCESS);
  EXPECT_NE(message.find("key"), std::string::npos) << message;
}

}  // namespace
