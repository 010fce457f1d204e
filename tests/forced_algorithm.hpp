// What the Alltoallv suites share: every registered algorithm's name, a
// communicator with an info that forces one of them, the algorithm a request
// runs, and how many iterations a test runs at this rank count.
#pragma once

#include <string>
#include <vector>

#include "collectives/registry.hpp"
#include "tests/mpi_test.hpp"

namespace mpix_test {

inline std::vector<std::string> algorithm_names() {
  std::vector<std::string> names;
  for (const auto* a : mpix::alltoallv_algorithms()) names.emplace_back(a->name);
  return names;
}

// 50+ on 2 ranks; oversubscribed runs (3-4 ranks on 2 cores) pay ~30 ms per
// synchronization, so they check a few.
inline int iterations() { return world_size() <= 2 ? 60 : 3; }

// The registry name of the algorithm that runs request.
inline std::string algorithm_of(const MPIX_Request* request) {
  char name[MPIX_MAX_OBJECT_NAME];
  int len = 0;
  MPIX_Request_get_algorithm(request, name, &len);
  return std::string(name, len);
}

// What auto may run: a registered algorithm other than itself.
inline bool is_candidate(const std::string& name) {
  return name != "auto" && mpix::find_alltoallv_algorithm(name) != nullptr;
}
inline bool is_two_sided(const std::string& name) { return name == "native" || name == "native_persistent"; }

// A request made for `algorithm` runs it; one made for auto runs a candidate.
inline void expect_runs(const MPIX_Request* request, const std::string& algorithm) {
  const std::string running = algorithm_of(request);
  if (algorithm == "auto")
    EXPECT_TRUE(is_candidate(running)) << running;
  else
    EXPECT_EQ(running, algorithm);
}

class ForcedAlgorithm {
 public:
  explicit ForcedAlgorithm(const std::string& name) {
    MPIX_Comm_init(&comm_, MPI_COMM_WORLD);
    MPIX_Info_init(&info_);
    MPIX_Info_set(info_, "mpix_alltoallv_algorithm", name.c_str());
  }
  ~ForcedAlgorithm() {
    MPIX_Info_free(&info_);
    MPIX_Comm_free(&comm_);
  }
  ForcedAlgorithm(const ForcedAlgorithm&) = delete;
  ForcedAlgorithm& operator=(const ForcedAlgorithm&) = delete;
  MPIX_Comm* comm() const { return comm_; }
  MPIX_Info* info() const { return info_; }

 private:
  MPIX_Comm* comm_ = nullptr;
  MPIX_Info* info_ = nullptr;
};

}  // namespace mpix_test
