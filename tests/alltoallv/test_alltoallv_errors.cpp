// Bad Alltoallv arguments on one rank give the same MPI error on every rank,
// with a message naming the argument and the rank; no rank hangs.
#include "src/library.hpp"
#include "collectives/alltoallv/config.hpp"
#include "collectives/auto/settings.hpp"
#include "tests/alltoallv/forced_algorithm.hpp"
#include "tests/alltoallv/request_fixture.hpp"

using namespace mpix_test;

namespace {

class AlltoallvErrors : public RequestTest {
 protected:
  int last_rank() const { return world_size() - 1; }
  bool is_culprit() const { return world_rank() == last_rank(); }

  // Calls init (with whatever the test broke) and checks the agreed outcome;
  // returns the message.
  std::string expect_agreed_error(int expected_class, const std::string& words) {
    const int rc = call();
    const std::string message = error_message(rc);
    EXPECT_EQ(error_class(rc), expected_class) << message;
    EXPECT_NE(message.find(words), std::string::npos) << message;
    EXPECT_NE(message.find("MPIX_Alltoallv_init"), std::string::npos) << message;
    EXPECT_EQ(request_, nullptr);
    return message;
  }
  // The same, for an error found on the culprit rank itself.
  void expect_error_everywhere(int expected_class, const std::string& words) {
    const std::string message = expect_agreed_error(expected_class, words);
    EXPECT_NE(message.find("on rank " + std::to_string(last_rank())), std::string::npos) << message;
  }
  int call() {
    return MPIX_Alltoallv_init(sendbuf_, sendcounts_, sdispls_, sendtype_, recvbuf_, counts_.data(), displs_.data(),
                               MPI_INT, comm_, info_, request_out_);
  }

  void SetUp() override {
    RequestTest::SetUp();
    sendbuf_ = send_.data();
    recvbuf_ = recv_.data();
    sendcounts_ = counts_.data();
    sdispls_ = displs_.data();
  }

  const void* sendbuf_ = nullptr;
  void* recvbuf_ = nullptr;
  const int* sendcounts_ = nullptr;
  const int* sdispls_ = nullptr;
  MPI_Datatype sendtype_ = MPI_INT;
  MPIX_Request* request_ = nullptr;
  MPIX_Request** request_out_ = &request_;
  std::vector<int> bad_;
};

// The same, on a communicator whose configuration (built here, not taken
// from the environment) sets the fallback policy.
class FallbackPolicies : public AlltoallvErrors, public ::testing::WithParamInterface<mpix::FallbackPolicy> {
 protected:
  void SetUp() override {
    AlltoallvErrors::SetUp();
    MPIX_Comm_free(&comm_);
    mpix::Config config = mpix::Library::get().config();
    config.section<mpix::AutoConfig>().fallback = GetParam();
    comm_ = mpix::comm_init(MPI_COMM_WORLD, config);
  }
  bool policy_is_error() const { return GetParam() == mpix::FallbackPolicy::error; }
};

}  // namespace

TEST_F(AlltoallvErrors, NegativeCountOnOneRank) {
  bad_ = counts_;
  if (is_culprit()) bad_[0] = -1, sendcounts_ = bad_.data();
  expect_error_everywhere(MPI_ERR_COUNT, "sendcounts[0] = -1");
}

TEST_F(AlltoallvErrors, NegativeDisplacementOnOneRank) {
  bad_ = displs_;
  if (is_culprit()) bad_[0] = -4, sdispls_ = bad_.data();
  expect_error_everywhere(MPI_ERR_COUNT, "sdispls[0] = -4");
}

TEST_F(AlltoallvErrors, NullCountArrayOnOneRank) {
  if (is_culprit()) sendcounts_ = nullptr;
  expect_error_everywhere(MPI_ERR_ARG, "sendcounts is NULL");
}

TEST_F(AlltoallvErrors, NullSendBufferWithDataOnOneRank) {
  if (is_culprit()) sendbuf_ = nullptr;
  expect_error_everywhere(MPI_ERR_BUFFER, "sendbuf is NULL");
}

TEST_F(AlltoallvErrors, NullDatatypeOnOneRank) {
  if (is_culprit()) sendtype_ = MPI_DATATYPE_NULL;
  expect_error_everywhere(MPI_ERR_TYPE, "sendtype is MPI_DATATYPE_NULL");
}

TEST_F(AlltoallvErrors, SendSizeDiffersFromWhatTheTargetExpects) {
  // The culprit sends 3 ints to rank 0, which expects 2.
  bad_ = counts_;
  std::vector<int> big_send(send_.size() + 1);
  if (is_culprit()) bad_[0] = 3, sendcounts_ = bad_.data(), sendbuf_ = big_send.data();
  std::vector<int> shifted = displs_;
  for (std::size_t i = 1; i < shifted.size(); ++i) shifted[i] += 1;
  if (is_culprit()) sdispls_ = shifted.data();
  expect_agreed_error(MPI_ERR_TRUNCATE, "rank " + std::to_string(last_rank()) + " sends 12 bytes to rank 0");
}

TEST_F(AlltoallvErrors, NullRequestPointerOnOneRank) {
  if (is_culprit()) request_out_ = nullptr;
  expect_error_everywhere(MPI_ERR_ARG, "request is NULL");
}

TEST_F(AlltoallvErrors, InPlaceOnSomeRanksOnly) {
  if (is_culprit()) sendbuf_ = MPI_IN_PLACE;
  expect_agreed_error(MPI_ERR_BUFFER, "it must be used on all ranks or none");
}

TEST_F(AlltoallvErrors, RecvbufInPlaceOnOneRank) {
  if (is_culprit()) recvbuf_ = MPI_IN_PLACE;
  expect_error_everywhere(MPI_ERR_BUFFER, "recvbuf is MPI_IN_PLACE");
}

TEST_F(AlltoallvErrors, SameBufferForSendAndReceive) {
  if (is_culprit()) sendbuf_ = recvbuf_;
  expect_error_everywhere(MPI_ERR_BUFFER, "pass MPI_IN_PLACE");
}

TEST_F(AlltoallvErrors, DifferentAlgorithmsOnDifferentRanks) {
  if (is_culprit())
    MPIX_Info_set(info_, "mpix_alltoallv_algorithm", first_with(mpix::capability::mpi_baseline).c_str());
  expect_agreed_error(MPIX_ERR_ALGORITHM, "different Alltoallv algorithms");
}

TEST_P(FallbackPolicies, UnknownAlgorithmFollowsTheFallbackPolicy) {
  MPIX_Info_set(info_, "mpix_alltoallv_algorithm", "no_such_algorithm");
  const int rc = call();
  if (policy_is_error()) {
    const std::string message = error_message(rc);
    EXPECT_EQ(error_class(rc), MPIX_ERR_ALGORITHM) << message;
    EXPECT_NE(message.find("unknown Alltoallv algorithm 'no_such_algorithm'"), std::string::npos) << message;
    EXPECT_NE(message.find("registered: " + mpix::alltoallv_algorithm_names()), std::string::npos) << message;
    EXPECT_EQ(request_, nullptr);
    return;
  }
  ASSERT_EQ(rc, MPI_SUCCESS) << error_message(rc);
  EXPECT_TRUE(is_candidate(algorithm_of(request_))) << algorithm_of(request_);
  ASSERT_EQ(MPIX_Start(request_), MPI_SUCCESS);
  ASSERT_EQ(MPIX_Wait(request_, MPI_STATUS_IGNORE), MPI_SUCCESS);
  expect_received(recv_);
  EXPECT_EQ(MPIX_Request_free(&request_), MPI_SUCCESS);
}

TEST_F(AlltoallvErrors, NullCommunicatorIsALocalError) {
  MPIX_Request* request = nullptr;
  const int rc = MPIX_Alltoallv_init(send_.data(), counts_.data(), displs_.data(), MPI_INT, recv_.data(),
                                     counts_.data(), displs_.data(), MPI_INT, nullptr, nullptr, &request);
  EXPECT_EQ(error_class(rc), MPI_ERR_COMM);
}

TEST_F(AlltoallvErrors, ErrorsAfterAnErrorStillWork) {
  bad_ = counts_;
  if (is_culprit()) bad_[0] = -1, sendcounts_ = bad_.data();
  EXPECT_NE(call(), MPI_SUCCESS);
  sendcounts_ = counts_.data();
  ASSERT_EQ(call(), MPI_SUCCESS);
  ASSERT_EQ(MPIX_Start(request_), MPI_SUCCESS);
  ASSERT_EQ(MPIX_Wait(request_, MPI_STATUS_IGNORE), MPI_SUCCESS);
  expect_received(recv_);
  EXPECT_EQ(MPIX_Request_free(&request_), MPI_SUCCESS);
}

TEST_P(FallbackPolicies, RefusalOnOneRankFollowsTheFallbackPolicyOnEveryRank) {
  // Same type signature, another layout: the RMA algorithm refuses it on the
  // culprit only; init only, the exchange itself is the oracle suite's.
  MPI_Datatype spaced = MPI_DATATYPE_NULL;
  MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &spaced);
  MPI_Type_commit(&spaced);
  if (is_culprit()) sendtype_ = spaced;
  MPIX_Info_set(info_, "mpix_alltoallv_algorithm", first_with(mpix::capability::contiguous_types).c_str());
  if (policy_is_error()) {
    expect_agreed_error(MPIX_ERR_ALGORITHM,
                        "cannot run these arguments on rank " + std::to_string(last_rank()) + ": sendtype");
  } else {
    ASSERT_EQ(call(), MPI_SUCCESS);
    // The fallback, auto, leaves out every algorithm a rank refuses.
    EXPECT_TRUE(is_two_sided(algorithm_of(request_))) << algorithm_of(request_);
    EXPECT_EQ(MPIX_Request_free(&request_), MPI_SUCCESS);
  }
  MPI_Type_free(&spaced);
}

INSTANTIATE_TEST_SUITE_P(Config, FallbackPolicies,
                         ::testing::Values(mpix::FallbackPolicy::warn, mpix::FallbackPolicy::error,
                                           mpix::FallbackPolicy::silent),
                         [](const ::testing::TestParamInfo<mpix::FallbackPolicy>& info) {
                           return std::string(info.param == mpix::FallbackPolicy::warn    ? "warn"
                                              : info.param == mpix::FallbackPolicy::error ? "error"
                                                                                           : "silent");
                         });

namespace {
int handler_calls = 0;
void count_error(MPI_Comm*, int*, ...) { ++handler_calls; }
}  // namespace

// Errors are raised on the user's communicator with the handler it has when
// they happen (set after MPIX_Comm_init here), as MPI raises its own; the
// message names the argument once, with its rank once.
TEST_F(MpiTest, ErrorsGoToTheUsersCommunicatorsCurrentHandler) {
  MPI_Comm user = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &user);
  MPIX_Comm* comm = nullptr;
  ASSERT_EQ(MPIX_Comm_init(&comm, user), MPI_SUCCESS);
  MPI_Errhandler counting = MPI_ERRHANDLER_NULL;
  MPI_Comm_create_errhandler(count_error, &counting);
  MPI_Comm_set_errhandler(user, counting);
  handler_calls = 0;
  const int n = world_size();
  std::vector<int> counts(n, 1), displs(n), send(n), recv(n);
  for (int i = 0; i < n; ++i) displs[i] = i;
  if (world_rank() == n - 1) counts[0] = -1;
  MPIX_Request* request = nullptr;
  const int rc = MPIX_Alltoallv_init(send.data(), counts.data(), displs.data(), MPI_INT, recv.data(), counts.data(),
                                     displs.data(), MPI_INT, comm, nullptr, &request);
  EXPECT_EQ(error_class(rc), MPI_ERR_COUNT);
  EXPECT_EQ(handler_calls, 1) << "the user's handler, set after MPIX_Comm_init, sees the error once";
  const std::string message = error_message(rc);
  const std::string located = "on rank " + std::to_string(n - 1) + ": ";
  const std::size_t first = message.find(located);
  EXPECT_NE(first, std::string::npos) << message;
  EXPECT_EQ(message.find(located, first + 1), std::string::npos) << "rank named twice: " << message;
  MPI_Comm_set_errhandler(user, MPI_ERRORS_RETURN);
  MPI_Errhandler_free(&counting);
  EXPECT_EQ(MPIX_Comm_free(&comm), MPI_SUCCESS);
  MPI_Comm_free(&user);
}
