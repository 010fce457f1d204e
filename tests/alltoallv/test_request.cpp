// The persistent request life cycle and MPI's state rules.
#include "tests/alltoallv/forced_algorithm.hpp"
#include "tests/alltoallv/request_fixture.hpp"

using namespace mpix_test;

TEST_F(RequestTest, StartWaitRepeatsAndGivesAnEmptyStatus) {
  MPIX_Request* request = nullptr;
  ASSERT_EQ(init(&request), MPI_SUCCESS);
  for (int it = 0; it < 3; ++it) {
    recv_.assign(recv_.size(), -1);
    ASSERT_EQ(MPIX_Start(request), MPI_SUCCESS);
    MPI_Status status;
    ASSERT_EQ(MPIX_Wait(request, &status), MPI_SUCCESS);
    EXPECT_EQ(status.MPI_SOURCE, MPI_ANY_SOURCE);
    EXPECT_EQ(status.MPI_TAG, MPI_ANY_TAG);
    expect_received(recv_);
  }
  EXPECT_EQ(MPIX_Request_free(&request), MPI_SUCCESS);
  EXPECT_EQ(request, nullptr);
}

TEST_F(RequestTest, StartingAnActiveRequestIsAnError) {
  MPIX_Request* request = nullptr;
  ASSERT_EQ(init(&request), MPI_SUCCESS);
  ASSERT_EQ(MPIX_Start(request), MPI_SUCCESS);
  const int rc = MPIX_Start(request);
  EXPECT_EQ(error_class(rc), MPI_ERR_REQUEST);
  EXPECT_NE(error_message(rc).find("already active"), std::string::npos) << error_message(rc);
  EXPECT_NE(error_message(rc).find("rank " + std::to_string(world_rank())), std::string::npos);
  EXPECT_EQ(MPIX_Wait(request, MPI_STATUS_IGNORE), MPI_SUCCESS);
  expect_received(recv_);
  EXPECT_EQ(MPIX_Request_free(&request), MPI_SUCCESS);
}

TEST_F(RequestTest, FreeingAnActiveRequestIsAnErrorAndKeepsIt) {
  MPIX_Request* request = nullptr;
  ASSERT_EQ(init(&request), MPI_SUCCESS);
  ASSERT_EQ(MPIX_Start(request), MPI_SUCCESS);
  EXPECT_EQ(error_class(MPIX_Request_free(&request)), MPI_ERR_REQUEST);
  ASSERT_NE(request, nullptr);
  EXPECT_EQ(MPIX_Wait(request, MPI_STATUS_IGNORE), MPI_SUCCESS);
  EXPECT_EQ(MPIX_Request_free(&request), MPI_SUCCESS);
}

TEST_F(RequestTest, WaitAndTestOnInactiveRequestsReturnAtOnce) {
  MPIX_Request* request = nullptr;
  ASSERT_EQ(init(&request), MPI_SUCCESS);
  EXPECT_EQ(MPIX_Wait(request, MPI_STATUS_IGNORE), MPI_SUCCESS);  // never started
  int flag = 0;
  EXPECT_EQ(MPIX_Test(request, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
  EXPECT_EQ(flag, 1);
  MPIX_Request* null_request = nullptr;
  EXPECT_EQ(MPIX_Wait(null_request, MPI_STATUS_IGNORE), MPI_SUCCESS);
  flag = 0;
  EXPECT_EQ(MPIX_Test(null_request, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
  EXPECT_EQ(flag, 1);
  EXPECT_EQ(MPIX_Request_free(&null_request), MPI_SUCCESS);
  EXPECT_EQ(MPIX_Request_free(&request), MPI_SUCCESS);
}

TEST_F(RequestTest, TestPollingCompletesWithoutWait) {
  MPIX_Request* request = nullptr;
  ASSERT_EQ(init(&request), MPI_SUCCESS);
  ASSERT_EQ(MPIX_Start(request), MPI_SUCCESS);
  int flag = 0;
  while (!flag) ASSERT_EQ(MPIX_Test(request, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
  expect_received(recv_);
  ASSERT_EQ(MPIX_Start(request), MPI_SUCCESS);  // inactive again: may restart
  EXPECT_EQ(MPIX_Wait(request, MPI_STATUS_IGNORE), MPI_SUCCESS);
  EXPECT_EQ(MPIX_Request_free(&request), MPI_SUCCESS);
}

TEST_F(RequestTest, StartallAndWaitallRunTwoRequestsOnOneCommunicator) {
  std::vector<int> other(recv_.size(), -1);
  MPIX_Request* requests[2] = {nullptr, nullptr};
  ASSERT_EQ(init(&requests[0]), MPI_SUCCESS);
  ASSERT_EQ(init(&requests[1], &other), MPI_SUCCESS);
  for (int it = 0; it < 3; ++it) {
    recv_.assign(recv_.size(), -1);
    other.assign(other.size(), -1);
    ASSERT_EQ(MPIX_Startall(2, requests), MPI_SUCCESS);
    MPI_Status statuses[2];
    ASSERT_EQ(MPIX_Waitall(2, requests, statuses), MPI_SUCCESS);
    expect_received(recv_);
    expect_received(other);
  }
  // Startall starts none when one is active: the inactive one can be
  // started on its own afterwards (an active request refuses a Start).
  ASSERT_EQ(MPIX_Start(requests[1]), MPI_SUCCESS);
  EXPECT_EQ(error_class(MPIX_Startall(2, requests)), MPI_ERR_REQUEST);
  ASSERT_EQ(MPIX_Wait(requests[1], MPI_STATUS_IGNORE), MPI_SUCCESS);
  recv_.assign(recv_.size(), -1);
  EXPECT_EQ(MPIX_Start(requests[0]), MPI_SUCCESS) << "the failed Startall started requests[0]";
  ASSERT_EQ(MPIX_Wait(requests[0], MPI_STATUS_IGNORE), MPI_SUCCESS);
  expect_received(recv_);
  EXPECT_EQ(MPIX_Request_free(&requests[0]), MPI_SUCCESS);
  // The other request is untouched by the first one's free.
  ASSERT_EQ(MPIX_Start(requests[1]), MPI_SUCCESS);
  ASSERT_EQ(MPIX_Wait(requests[1], MPI_STATUS_IGNORE), MPI_SUCCESS);
  expect_received(other);
  EXPECT_EQ(MPIX_Request_free(&requests[1]), MPI_SUCCESS);
}

TEST_F(RequestTest, DoubleFreeThroughACopyIsDetected) {
  MPIX_Request* request = nullptr;
  ASSERT_EQ(init(&request), MPI_SUCCESS);
  MPIX_Request* copy = request;
  EXPECT_EQ(MPIX_Request_free(&request), MPI_SUCCESS);
  EXPECT_EQ(error_class(MPIX_Request_free(&copy)), MPI_ERR_REQUEST);
}

TEST_F(RequestTest, RequestOutlivesItsFreedCommunicator) {
  MPIX_Request* request = nullptr;
  ASSERT_EQ(init(&request), MPI_SUCCESS);
  ASSERT_EQ(MPIX_Comm_free(&comm_), MPI_SUCCESS);
  ASSERT_EQ(MPIX_Start(request), MPI_SUCCESS);
  ASSERT_EQ(MPIX_Wait(request, MPI_STATUS_IGNORE), MPI_SUCCESS);
  expect_received(recv_);
  EXPECT_EQ(MPIX_Request_free(&request), MPI_SUCCESS);
}

TEST_F(RequestTest, ReportsTheAlgorithmName) {
  const std::string forced = mpix_test::first_with(mpix::capability::mpi_baseline);
  ASSERT_EQ(MPIX_Info_set(info_, "mpix_alltoallv_algorithm", forced.c_str()), MPI_SUCCESS);
  MPIX_Request* request = nullptr;
  ASSERT_EQ(init(&request), MPI_SUCCESS);
  char name[MPIX_MAX_OBJECT_NAME];
  int len = 0;
  ASSERT_EQ(MPIX_Request_get_algorithm(request, name, &len), MPI_SUCCESS);
  EXPECT_EQ(std::string(name, len), forced);
  EXPECT_EQ(MPIX_Request_free(&request), MPI_SUCCESS);
}

TEST_F(RequestTest, InfoRejectsBadKeysAndValues) {
  EXPECT_EQ(error_class(MPIX_Info_set(info_, nullptr, "x")), MPI_ERR_INFO_KEY);
  EXPECT_EQ(error_class(MPIX_Info_set(info_, "", "x")), MPI_ERR_INFO_KEY);
  EXPECT_EQ(error_class(MPIX_Info_set(info_, std::string(MPI_MAX_INFO_KEY + 1, 'k').c_str(), "x")),
            MPI_ERR_INFO_KEY);
  EXPECT_EQ(error_class(MPIX_Info_set(info_, "key", nullptr)), MPI_ERR_INFO_VALUE);
  EXPECT_EQ(error_class(MPIX_Info_set(nullptr, "key", "x")), MPI_ERR_INFO);
}
