// A small valid Alltoallv request on MPI_COMM_WORLD, for tests that exercise
// the request life cycle and the error paths around it.
#pragma once

#include <string>
#include <vector>

#include "tests/mpi_test.hpp"

namespace mpix_test {

class RequestTest : public MpiTest {
 protected:
  void SetUp() override {
    const int p = world_size();
    counts_.assign(p, 2);
    displs_.resize(p);
    for (int i = 0; i < p; ++i) displs_[i] = 2 * i;
    send_.assign(2 * p, world_rank());
    recv_.assign(2 * p, -1);
    ASSERT_EQ(MPIX_Comm_init(&comm_, MPI_COMM_WORLD), MPI_SUCCESS);
    ASSERT_EQ(MPIX_Info_init(&info_), MPI_SUCCESS);
  }
  void TearDown() override {
    MPIX_Info_free(&info_);
    MPIX_Comm_free(&comm_);
    MpiTest::TearDown();
  }
  // Alltoallv_init with the fixture's valid arguments.
  int init(MPIX_Request** request, std::vector<int>* recv = nullptr) {
    std::vector<int>& r = recv ? *recv : recv_;
    return MPIX_Alltoallv_init(send_.data(), counts_.data(), displs_.data(), MPI_INT, r.data(), counts_.data(),
                               displs_.data(), MPI_INT, comm_, info_, request);
  }
  // Every peer's block holds that peer's rank.
  void expect_received(const std::vector<int>& recv) const {
    for (int i = 0; i < static_cast<int>(recv.size()); ++i) EXPECT_EQ(recv[i], i / 2) << "element " << i;
  }

  std::vector<int> counts_, displs_, send_, recv_;
  MPIX_Comm* comm_ = nullptr;
  MPIX_Info* info_ = nullptr;
};

}  // namespace mpix_test
