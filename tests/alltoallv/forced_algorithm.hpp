// What the Alltoallv suites share: every registered algorithm's name, a
// communicator with an info that forces one of them, the algorithm a request
// runs, and how many iterations a test runs at this rank count.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "capi/handles.hpp"
#include "collectives/alltoallv/family.hpp"
#include "node/node_config.hpp"
#include "tests/mpi_test.hpp"

namespace mpix_test {

inline std::vector<std::string> algorithm_names() {
  std::vector<std::string> names;
  for (const auto* a : mpix::alltoallv_algorithms()) names.emplace_back(a->name);
  return names;
}

// The registry's row of name (nullptr: not registered), and whether it has
// every capability bit of bits.
inline const mpix::AlltoallvAlgorithm* row_of(const std::string& name) {
  return mpix::find_alltoallv_algorithm(name);
}
inline bool has(const std::string& name, unsigned bits) {
  const mpix::AlltoallvAlgorithm* row = row_of(name);
  return row != nullptr && row->has(bits);
}
// The first registered row with every bit of bits: the algorithm a test of
// that capability exercises.
inline std::string first_with(unsigned bits) {
  for (const auto* a : mpix::alltoallv_algorithms())
    if (a->has(bits)) return a->name;
  ADD_FAILURE() << "no registered algorithm has capabilities " << bits;
  return "";
}
// The selector: the library's default algorithm.
inline std::string selector_name() { return first_with(mpix::capability::selects); }

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

// What auto may run: a registered algorithm other than a selector.
inline bool is_candidate(const std::string& name) {
  return row_of(name) != nullptr && !has(name, mpix::capability::selects);
}
// MPI's own calls, plain or persistent: what runs any valid arguments.
inline bool is_two_sided(const std::string& name) {
  return has(name, mpix::capability::mpi_baseline) || has(name, mpix::capability::mpi_persistent);
}

// A request made for `algorithm` runs it; one made for auto runs a candidate.
inline void expect_runs(const MPIX_Request* request, const std::string& algorithm) {
  const std::string running = algorithm_of(request);
  if (has(algorithm, mpix::capability::selects))
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
      {"tiny_rings", [](mpix::Config& c) { c.section<mpix::NodeConfig>().chunk_bytes = 64,
                                           c.section<mpix::NodeConfig>().staging_bytes = 256; }},
      {"by_reference", [](mpix::Config& c) { c.section<mpix::NodeConfig>().single_copy_bytes = 1,
                                             c.section<mpix::NodeConfig>().cma_bytes = 1; }},
  };
  return variants;
}

// What the registry-parametrised suites run: every registered algorithm
// under the environment's configuration, then the node channel under each
// variant (the first node-channel row: "channel+tiny_rings").
inline std::vector<std::string> algorithm_settings() {
  std::vector<std::string> settings = algorithm_names();
  const std::string channel = first_with(mpix::capability::node_channel);
  for (const ConfigVariant& v : config_variants()) settings.push_back(channel + "+" + v.name);
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
