// Every registered Alltoallv algorithm against MPI_Alltoallv, the oracle, on
// irregular patterns and several datatypes, with send data that changes every
// iteration and receive buffers poisoned before each one. New algorithms are
// covered by adding their registry row: the suite lists the registry.
#include <algorithm>
#include <tuple>

#include "src/library.hpp"
#include "collectives/alltoallv/config.hpp"
#include "tests/alltoallv/alltoallv_case.hpp"
#include "tests/alltoallv/forced_algorithm.hpp"

using namespace mpix_test;

namespace {

using Params = std::tuple<std::string, std::size_t, std::size_t>;  // algorithm, pattern, datatype

class AlltoallvOracle : public MpiTest, public ::testing::WithParamInterface<Params> {};

}  // namespace

TEST_P(AlltoallvOracle, MatchesMpiAlltoallvEveryIteration) {
  const auto& [algorithm, pattern_index, type_index] = GetParam();
  const Pattern& pattern = patterns()[pattern_index];
  const DatatypeCase& type_case = datatype_cases()[type_index];
  // Oversubscribed runs keep one type: what the rank count changes is who
  // sends to whom, not how a type moves (every type runs on 2 ranks).
  if (world_size() > 2 && std::string(type_case.name) != "int")
    GTEST_SKIP() << type_case.name << " runs on 2 ranks only";
  const int rank = world_rank();
  const Exchange x = make_exchange(pattern.counts(world_size()), rank, pattern.gaps, pattern.reversed);

  MPI_Datatype type = type_case.make();
  MPI_Aint lb = 0, extent = 0;
  MPI_Type_get_extent(type, &lb, &extent);
  std::vector<unsigned char> send(std::max<std::size_t>(1, x.send_elements) * extent);
  std::vector<unsigned char> recv(std::max<std::size_t>(1, x.recv_elements) * extent);
  std::vector<unsigned char> expected(recv.size());

  ForcedAlgorithm forced(algorithm);
  MPIX_Request* request = nullptr;
  ASSERT_EQ(MPIX_Alltoallv_init(send.data(), x.sendcounts.data(), x.sdispls.data(), type, recv.data(),
                                x.recvcounts.data(), x.rdispls.data(), type, forced.comm(), forced.info(),
                                &request),
            MPI_SUCCESS);
  // Every algorithm must run contiguous types itself; others may fall back.
  if (type_case.contiguous) expect_runs(request, forced.algorithm());

  for (int it = 0; it < iterations(); ++it) {
    fill_send(send, it, rank);
    std::fill(recv.begin(), recv.end(), poison);
    std::fill(expected.begin(), expected.end(), poison);
    ASSERT_EQ(MPIX_Start(request), MPI_SUCCESS);
    complete(request, it);
    MPI_Alltoallv(send.data(), x.sendcounts.data(), x.sdispls.data(), type, expected.data(), x.recvcounts.data(),
                  x.rdispls.data(), type, MPI_COMM_WORLD);
    const long diff = first_difference(recv, expected);
    EXPECT_EQ(diff, -1) << "iteration " << it << ": first wrong byte " << diff << " of " << recv.size();
  }
  EXPECT_EQ(MPIX_Request_free(&request), MPI_SUCCESS);
  if (!type_case.predefined) MPI_Type_free(&type);
}

INSTANTIATE_TEST_SUITE_P(
    Registry, AlltoallvOracle,
    ::testing::Combine(::testing::ValuesIn(algorithm_settings()), ::testing::Range<std::size_t>(0, patterns().size()),
                       ::testing::Range<std::size_t>(0, datatype_cases().size())),
    [](const ::testing::TestParamInfo<Params>& info) {
      return setting_test_name(std::get<0>(info.param)) + "_" + patterns()[std::get<1>(info.param)].name + "_" +
             datatype_cases()[std::get<2>(info.param)].name;
    });

namespace {
class AlltoallvInPlace : public MpiTest, public ::testing::WithParamInterface<std::string> {};
}  // namespace

TEST_P(AlltoallvInPlace, MatchesMpiAlltoallvInPlaceOrFallsBackCorrectly) {
  const int rank = world_rank();
  const Exchange x = make_exchange(symmetric_counts(world_size()), rank, true, false);
  std::vector<unsigned char> buffer(std::max<std::size_t>(1, x.recv_elements) * sizeof(int));
  std::vector<unsigned char> expected(buffer.size());

  ForcedAlgorithm forced(GetParam());
  MPIX_Request* request = nullptr;
  ASSERT_EQ(MPIX_Alltoallv_init(MPI_IN_PLACE, nullptr, nullptr, MPI_DATATYPE_NULL, buffer.data(),
                                x.recvcounts.data(), x.rdispls.data(), MPI_INT, forced.comm(), forced.info(),
                                &request),
            MPI_SUCCESS);
  for (int it = 0; it < iterations(); ++it) {
    fill_send(buffer, it, rank);
    expected = buffer;
    ASSERT_EQ(MPIX_Start(request), MPI_SUCCESS);
    complete(request, it);
    MPI_Alltoallv(MPI_IN_PLACE, nullptr, nullptr, MPI_DATATYPE_NULL, expected.data(), x.recvcounts.data(),
                  x.rdispls.data(), MPI_INT, MPI_COMM_WORLD);
    EXPECT_EQ(first_difference(buffer, expected), -1) << "iteration " << it;
  }
  EXPECT_EQ(MPIX_Request_free(&request), MPI_SUCCESS);
}

INSTANTIATE_TEST_SUITE_P(Registry, AlltoallvInPlace, ::testing::ValuesIn(algorithm_settings()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return setting_test_name(info.param);
                         });

TEST_F(MpiTest, DefaultAlgorithmIsAutoWithoutHints) {
  // Registered also under MPIX_ALLTOALLV_ALGORITHM=native: then that wins.
  const Exchange x = make_exchange(patterns()[0].counts(world_size()), world_rank(), false, false);
  std::vector<int> send(x.send_elements), recv(x.recv_elements);
  MPIX_Comm* comm = nullptr;
  ASSERT_EQ(MPIX_Comm_init(&comm, MPI_COMM_WORLD), MPI_SUCCESS);
  MPIX_Request* request = nullptr;
  ASSERT_EQ(MPIX_Alltoallv_init(send.data(), x.sendcounts.data(), x.sdispls.data(), MPI_INT, recv.data(),
                                x.recvcounts.data(), x.rdispls.data(), MPI_INT, comm, nullptr, &request),
            MPI_SUCCESS);
  const std::string forced = mpix::Library::get().config().section<mpix::AlltoallvConfig>().algorithm;
  expect_runs(request, forced.empty() ? selector_name() : forced);
  EXPECT_EQ(MPIX_Request_free(&request), MPI_SUCCESS);
  EXPECT_EQ(MPIX_Comm_free(&comm), MPI_SUCCESS);
}
