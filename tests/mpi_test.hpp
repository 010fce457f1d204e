// Shared pieces of the MPI test suites.
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>
#include <mpix/mpix.h>

#include <string>
#include <vector>

namespace mpix_test {

// The names of a family's registered rows (its <family>_algorithms()), in
// the registry's order: what the registry-parametrised suites run.
template <class Rows>
std::vector<std::string> names_of(const Rows& rows) {
  std::vector<std::string> names;
  for (const auto* row : rows) names.emplace_back(row->name);
  return names;
}

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
inline int world_size() {
  int n = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

// The error class of code, and the detailed message the library kept.
inline int error_class(int code) {
  int cls = code;
  MPI_Error_class(code, &cls);
  return cls;
}
inline std::string error_message(int code) {
  char text[MPIX_MAX_ERROR_STRING];
  int len = 0;
  MPIX_Error_string(code, text, &len);
  return std::string(text, len);
}

// Completes a started request by polling MPIX_Test on odd iterations and by
// MPIX_Wait on even ones: both must finish the exchange.
inline void complete(MPIX_Request* request, int iteration) {
  if (iteration % 2 == 0) {
    EXPECT_EQ(MPIX_Wait(request, MPI_STATUS_IGNORE), MPI_SUCCESS);
    return;
  }
  int flag = 0;
  while (!flag) ASSERT_EQ(MPIX_Test(request, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
}

// Base of every MPI test: a test that failed on any rank fails on all ranks,
// and rank 0's report names the lowest failing rank. Tests should use EXPECT_*
// between collectives, so no rank leaves another waiting.
class MpiTest : public ::testing::Test {
 protected:
  // Collective: whether the test has failed on any rank. A loop of
  // collectives stops on this, never on its own rank's HasFailure(), which
  // would leave the other ranks waiting in the next iteration's exchange.
  bool AnyRankFailed() const {
    int failed = HasFailure() ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return failed != 0;
  }
  void TearDown() override {
    int first_failed = HasFailure() ? world_rank() : world_size();
    MPI_Allreduce(MPI_IN_PLACE, &first_failed, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first_failed < world_size() && !HasFailure()) ADD_FAILURE() << "failed on rank " << first_failed;
  }
};

}  // namespace mpix_test
