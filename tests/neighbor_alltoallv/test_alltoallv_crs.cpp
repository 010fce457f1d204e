// MPIX_Alltoallv_crs, the sparse exchange with data, against a brute-force
// reference (MPI_Alltoall of the counts each rank sends each rank, then
// MPI_Alltoallv of the data): 40 random patterns with repeated
// destinations, self-sends and ranks that send nothing; a derived receive
// type of another extent; bad arguments on one rank failing on every rank;
// a repeated pattern served by the kept neighbourhood request
// (mpix_crs_reuse), and a change on one rank discovered again.
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "collectives/neighbor_alltoallv/crs_exchange.hpp"
#include "tests/mpi_test.hpp"

using namespace mpix_test;

namespace {

double value(int source, int destination, int k, int seed) {
  return source * 1e6 + destination * 1e3 + k + seed * 0.5;
}

class AlltoallvCrs : public MpiTest {
 protected:
  void SetUp() override {
    MpiTest::SetUp();
    ASSERT_EQ(MPIX_Comm_init(&comm_, MPI_COMM_WORLD), MPI_SUCCESS);
  }
  void TearDown() override {
    MPIX_Comm_free(&comm_);
    MpiTest::TearDown();
  }
  MPIX_Comm* comm_ = nullptr;
};

// This rank's blocks for a pattern seed: 0..5 of them, to random ranks
// (repeats and itself included; with proc_null, about a third to
// MPI_PROC_NULL, which receives nothing), 0..40 doubles each, packed back to
// front in sendvals.
struct CrsPattern {
  std::vector<int> dest, sendcounts, sdispls;
  int total = 0;
  CrsPattern(int seed, int me, int p, bool proc_null = false) {
    std::mt19937 random(static_cast<unsigned>(1000 * seed + me));
    const int nnz = static_cast<int>(random() % 6);
    dest.resize(nnz);
    sendcounts.resize(nnz);
    sdispls.resize(nnz);
    for (int i = 0; i < nnz; ++i) {
      dest[i] = static_cast<int>(random() % static_cast<unsigned>(p));
      if (proc_null && random() % 3 == 0) dest[i] = MPI_PROC_NULL;
      sendcounts[i] = static_cast<int>(random() % 41);
      total += sendcounts[i];
    }
    for (int i = nnz - 1, at = 0; i >= 0; --i) {
      sdispls[i] = at;
      at += sendcounts[i];
    }
  }
  int nnz() const { return static_cast<int>(dest.size()); }
};

// One MPIX_Alltoallv_crs of pattern with values of data_seed, checked
// against the brute-force reference.
void exchange_and_check(const CrsPattern& pattern, int data_seed, MPIX_Comm* comm, MPIX_Info* info) {
  const int p = world_size(), me = world_rank();
  const int nnz = pattern.nnz();
  const std::vector<int>&dest = pattern.dest, &sendcounts = pattern.sendcounts, &sdispls = pattern.sdispls;
  const int total = pattern.total;
  std::vector<double> sendvals(std::max(total, 1));
  // Element k of the block to d counts every earlier element to d, so
  // that a destination's blocks concatenate to 0, 1, 2, ...
  std::vector<int> sent_to(p, 0);
  for (int i = 0; i < nnz; ++i)
    for (int k = 0; k < sendcounts[i] && dest[i] != MPI_PROC_NULL; ++k)
      sendvals[sdispls[i] + k] = value(me, dest[i], sent_to[dest[i]]++, data_seed);

  int recv_nnz = -1;
  int *src = nullptr, *recvcounts = nullptr, *rdispls = nullptr;
  void* recvvals = nullptr;
  ASSERT_EQ(MPIX_Alltoallv_crs(nnz, dest.data(), sendcounts.data(), sdispls.data(), MPI_DOUBLE, sendvals.data(),
                               &recv_nnz, &src, &recvcounts, &rdispls, MPI_DOUBLE, &recvvals, comm, info),
            MPI_SUCCESS);

  // The reference: what each rank sends each rank, by brute force.
  std::vector<int> expected_counts(p);
  MPI_Alltoall(sent_to.data(), 1, MPI_INT, expected_counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  ASSERT_NE(src, nullptr);
  ASSERT_NE(recvcounts, nullptr);
  ASSERT_NE(rdispls, nullptr);
  ASSERT_NE(recvvals, nullptr);
  std::vector<int> got_counts(p, 0);
  const double* got = static_cast<const double*>(recvvals);
  for (int j = 0; j < recv_nnz; ++j) {
    ASSERT_TRUE(src[j] >= 0 && src[j] < p) << "data seed " << data_seed;
    if (j > 0) EXPECT_LE(src[j - 1], src[j]) << "sources ascend, data seed " << data_seed;
    for (int k = 0; k < recvcounts[j]; ++k)
      ASSERT_EQ(got[rdispls[j] + k], value(src[j], me, got_counts[src[j]] + k, data_seed))
          << "data seed " << data_seed << ", block " << j << " from " << src[j] << ", element " << k;
    got_counts[src[j]] += recvcounts[j];
  }
  EXPECT_EQ(got_counts, expected_counts) << "data seed " << data_seed;
  // The blocks received from each source, as MPI_Alltoallv delivers them.
  std::vector<int> sdispls_all(p), rdispls_all(p);
  for (int r = 1; r < p; ++r) {
    sdispls_all[r] = sdispls_all[r - 1] + sent_to[r - 1];
    rdispls_all[r] = rdispls_all[r - 1] + expected_counts[r - 1];
  }
  std::vector<double> by_destination(std::max(total, 1));
  std::vector<double> reference(std::max(rdispls_all[p - 1] + expected_counts[p - 1], 1));
  std::vector<int> placed(p, 0);
  for (int i = 0; i < nnz; ++i)
    for (int k = 0; k < sendcounts[i] && dest[i] != MPI_PROC_NULL; ++k)
      by_destination[sdispls_all[dest[i]] + placed[dest[i]]++] = sendvals[sdispls[i] + k];
  MPI_Alltoallv(by_destination.data(), sent_to.data(), sdispls_all.data(), MPI_DOUBLE, reference.data(),
                expected_counts.data(), rdispls_all.data(), MPI_DOUBLE, MPI_COMM_WORLD);
  std::vector<double> received;
  for (int j = 0; j < recv_nnz; ++j)
    received.insert(received.end(), got + rdispls[j], got + rdispls[j] + recvcounts[j]);
  reference.resize(received.size());
  EXPECT_EQ(received, reference) << "data seed " << data_seed;
  for (void* out : {static_cast<void*>(src), static_cast<void*>(recvcounts), static_cast<void*>(rdispls), recvvals})
    EXPECT_EQ(MPIX_Free(out), MPI_SUCCESS);
}

TEST_F(AlltoallvCrs, RandomPatternsMatchTheBruteForceReference) {
  for (int seed = 0; seed < 40; ++seed) {
    exchange_and_check(CrsPattern(seed, world_rank(), world_size()), seed, comm_, nullptr);
    if (HasFatalFailure()) return;
  }
}

// MPI_PROC_NULL among the destinations, as MPI's point-to-point accepts
// it: those blocks go nowhere, with and without re-use.
TEST_F(AlltoallvCrs, ProcNullDestinationsReceiveNothing) {
  for (int seed = 0; seed < 20; ++seed) {
    exchange_and_check(CrsPattern(seed, world_rank(), world_size(), true), seed, comm_, nullptr);
    if (HasFatalFailure()) return;
  }
  MPIX_Info* info = nullptr;
  ASSERT_EQ(MPIX_Info_init(&info), MPI_SUCCESS);
  ASSERT_EQ(MPIX_Info_set(info, "mpix_crs_reuse", "true"), MPI_SUCCESS);
  for (int seed = 0; seed < 4; ++seed) {
    const CrsPattern pattern(seed, world_rank(), world_size(), true);
    const std::uint64_t before = mpix::crs_exchanges_reused();
    for (int round = 0; round < 3 && !HasFatalFailure(); ++round) exchange_and_check(pattern, 10 * seed + round, comm_, info);
    EXPECT_EQ(mpix::crs_exchanges_reused() - before, 2u) << "seed " << seed;
  }
  MPIX_Info_free(&info);
}

// mpix_crs_reuse: each pattern runs three times with new data; the second
// and third calls are served by the kept neighbourhood request (the
// library's count says so), and every call equals the reference. Then one
// rank alone changes its pattern: the next call discovers again.
TEST_F(AlltoallvCrs, ARepeatedPatternIsServedWithoutDiscoveryAndAChangeOnOneRankIsSeen) {
  const int p = world_size(), me = world_rank();
  MPIX_Info* info = nullptr;
  ASSERT_EQ(MPIX_Info_init(&info), MPI_SUCCESS);
  ASSERT_EQ(MPIX_Info_set(info, "mpix_crs_reuse", "true"), MPI_SUCCESS);
  for (int seed = 0; seed < 8; ++seed) {
    const CrsPattern pattern(seed, me, p);
    const std::uint64_t before = mpix::crs_exchanges_reused();
    for (int round = 0; round < 3; ++round) {
      exchange_and_check(pattern, 100 * seed + round, comm_, info);
      if (HasFatalFailure()) break;
    }
    EXPECT_EQ(mpix::crs_exchanges_reused() - before, 2u) << "seed " << seed;
  }
  const CrsPattern kept(50, me, p), changed(me == p - 1 ? 51 : 50, me, p);
  exchange_and_check(kept, 1, comm_, info);
  const std::uint64_t before = mpix::crs_exchanges_reused();
  exchange_and_check(changed, 2, comm_, info);  // rank p - 1's pattern changed
  EXPECT_EQ(mpix::crs_exchanges_reused(), before) << "a pattern changed on one rank must be discovered again";
  exchange_and_check(changed, 3, comm_, info);
  EXPECT_EQ(mpix::crs_exchanges_reused(), before + 1);
  MPIX_Info_free(&info);
}

// What MPIX_Alltoallv_crs hands back, NULL until it does.
struct CrsOutputs {
  int recv_nnz = 0;
  int *src = nullptr, *recvcounts = nullptr, *rdispls = nullptr;
  void* recvvals = nullptr;
};

// One block of one double (1.0) to rank to; the call's return code.
int send_one_double(int to, MPIX_Comm* comm, MPIX_Info* info, CrsOutputs& out) {
  const int count = 1, displ = 0;
  const double one = 1.0;
  return MPIX_Alltoallv_crs(1, &to, &count, &displ, MPI_DOUBLE, &one, &out.recv_nnz, &out.src, &out.recvcounts,
                            &out.rdispls, MPI_DOUBLE, &out.recvvals, comm, info);
}

TEST_F(AlltoallvCrs, ReuseAskedOnSomeRanksOnlyFailsOnEveryRank) {
  const int p = world_size(), me = world_rank();
  MPIX_Info* info = nullptr;
  ASSERT_EQ(MPIX_Info_init(&info), MPI_SUCCESS);
  ASSERT_EQ(MPIX_Info_set(info, "mpix_crs_reuse", me == 0 ? "true" : "false"), MPI_SUCCESS);
  CrsOutputs out;
  const int rc = send_one_double((me + 1) % p, comm_, info, out);
  EXPECT_EQ(error_class(rc), MPI_ERR_INFO_VALUE) << error_message(rc);
  EXPECT_NE(error_message(rc).find("mpix_crs_reuse"), std::string::npos) << error_message(rc);
  MPIX_Info_free(&info);
}

// Pairs of ints sent, received as one element of a struct-like type of
// another extent (two ints and a gap): the element count follows recvtype.
TEST_F(AlltoallvCrs, ReceiveTypeOfAnotherExtent) {
  const int p = world_size(), me = world_rank();
  const int to = (me + 1) % p;
  const int sendvals[4] = {me, 10 * me, 100 * me, 1000 * me};
  const int count = 4, displ = 0;
  MPI_Datatype pair = MPI_DATATYPE_NULL, padded = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_create_resized(pair, 0, 3 * sizeof(int), &padded);
  MPI_Type_commit(&padded);
  int recv_nnz = 0;
  int *src = nullptr, *recvcounts = nullptr, *rdispls = nullptr;
  void* recvvals = nullptr;
  ASSERT_EQ(MPIX_Alltoallv_crs(1, &to, &count, &displ, MPI_INT, sendvals, &recv_nnz, &src, &recvcounts, &rdispls,
                               padded, &recvvals, comm_, nullptr),
            MPI_SUCCESS);
  const int from = (me - 1 + p) % p;
  ASSERT_EQ(recv_nnz, 1);
  EXPECT_EQ(src[0], from);
  EXPECT_EQ(recvcounts[0], 2);  // two pairs
  const int* got = static_cast<const int*>(recvvals);
  EXPECT_EQ(got[0], from);
  EXPECT_EQ(got[1], 10 * from);
  EXPECT_EQ(got[3], 100 * from);  // the second pair after the gap
  EXPECT_EQ(got[4], 1000 * from);
  for (void* out : {static_cast<void*>(src), static_cast<void*>(recvcounts), static_cast<void*>(rdispls), recvvals})
    MPIX_Free(out);
  MPI_Type_free(&padded);
  MPI_Type_free(&pair);
}

TEST_F(AlltoallvCrs, ADestinationOutOfRangeOnOneRankFailsOnEveryRank) {
  const int p = world_size(), me = world_rank();
  CrsOutputs out;
  const int rc = send_one_double(me == p - 1 ? p : 0, comm_, nullptr, out);
  EXPECT_EQ(error_class(rc), MPI_ERR_RANK) << error_message(rc);
  EXPECT_NE(error_message(rc).find("dest[0] = " + std::to_string(p)), std::string::npos) << error_message(rc);
  EXPECT_NE(error_message(rc).find("rank " + std::to_string(p - 1)), std::string::npos) << error_message(rc);
  EXPECT_EQ(out.src, nullptr);
  EXPECT_EQ(out.recvvals, nullptr);
}

}  // namespace
