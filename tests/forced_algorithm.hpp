// What the Alltoallv suites share: every registered algorithm's name, a
// communicator with an info that forces one of them, the algorithm a request
// runs, and how many iterations a test runs at this rank count.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "capi/handles.hpp"
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

// Configurations built in code rather than in the environment, each a
// change to the environment's: the node channel with two-slot rings of 64
// bytes (every block streams in chunks, senders wait for room), and with
// every block sent by reference (copied once by the receiver: by
// load/store from MPIX_Alloc_mem send buffers, by CMA from the heap).
struct ConfigVariant {
  const char* name;
  void (*apply)(mpix::Config&);
};
inline const std::vector<ConfigVariant>& config_variants() {
  static const std::vector<ConfigVariant> variants = {
      {"tiny_rings", [](mpix::Config& c) { c.channel_chunk_bytes = 64, c.channel_staging_bytes = 256; }},
      {"by_reference", [](mpix::Config& c) { c.channel_single_copy_bytes = 1, c.channel_cma_bytes = 1; }},
  };
  return variants;
}

// What the registry-parametrised suites run: every registered algorithm
// under the environment's configuration, then the node channel under each
// variant ("channel+tiny_rings").
inline std::vector<std::string> algorithm_settings() {
  std::vector<std::string> settings = algorithm_names();
  for (const ConfigVariant& v : config_variants()) settings.push_back(std::string("channel+") + v.name);
  return settings;
}
inline std::string setting_test_name(std::string setting) {
  std::replace(setting.begin(), setting.end(), '+', '_');
  return setting;
}

// A communicator whose info forces one algorithm (a setting of
// algorithm_settings()): under the configuration from the environment
// (MPIX_Comm_init), or under a variant of it built in code.
class ForcedAlgorithm {
 public:
  explicit ForcedAlgorithm(const std::string& setting) : algorithm_(setting.substr(0, setting.find('+'))) {
    const std::string variant = setting.size() > algorithm_.size() ? setting.substr(algorithm_.size() + 1) : "";
    if (variant.empty()) {
      MPIX_Comm_init(&comm_, MPI_COMM_WORLD);
    } else {
      mpix::Config config = mpix::Library::get().config();
      for (const ConfigVariant& v : config_variants())
        if (variant == v.name) v.apply(config);
      comm_ = mpix::comm_init(MPI_COMM_WORLD, config);
    }
    MPIX_Info_init(&info_);
    MPIX_Info_set(info_, "mpix_alltoallv_algorithm", algorithm_.c_str());
  }
  ~ForcedAlgorithm() {
    MPIX_Info_free(&info_);
    MPIX_Comm_free(&comm_);
  }
  ForcedAlgorithm(const ForcedAlgorithm&) = delete;
  ForcedAlgorithm& operator=(const ForcedAlgorithm&) = delete;
  const std::string& algorithm() const { return algorithm_; }
  MPIX_Comm* comm() const { return comm_; }
  MPIX_Info* info() const { return info_; }

 private:
  std::string algorithm_;
  MPIX_Comm* comm_ = nullptr;
  MPIX_Info* info_ = nullptr;
};

}  // namespace mpix_test
