#include "collectives/tuning_parameters.hpp"

#include <mpix/mpix.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "collectives/alltoallv_init.hpp"
#include "collectives/registry.hpp"
#include "selector/tuning_file.hpp"
#include "src/library.hpp"

namespace mpix {

namespace {

// The parameters of this process, freed with the library at MPI_Finalize.
class TuningStore final : public Resource {
 public:
  explicit TuningStore(const Config& config) {
    try {
      parameters = builtin_tuning();
      std::vector<std::string> registered;
      for (const AlltoallvAlgorithm* row : alltoallv_algorithms())
        if (std::string(row->name) != default_alltoallv_algorithm) registered.emplace_back(row->name);
      if (!config.tuning_file.empty()) parameters = read_tuning_file(config.tuning_file, parameters, &registered);
      fingerprint = tuning_fingerprint(parameters);
    } catch (const TuningFileError& e) {
      error.emplace(error_class(MPIX_ERRKIND_CONFIG), std::string("MPIX_TUNING_FILE: ") + e.what());
    }
  }
  ~TuningStore() override {
    std::lock_guard<std::mutex> lock(mutex);
    instance = nullptr;
  }

  static inline std::mutex mutex;
  static inline TuningStore* instance = nullptr;
  TuningParameters parameters;
  std::uint64_t fingerprint = 0;
  std::optional<Error> error;
};

const TuningStore& tuning_store() {
  Library& library = Library::get();
  std::lock_guard<std::mutex> lock(TuningStore::mutex);
  if (TuningStore::instance == nullptr)
    TuningStore::instance = library.adopt(std::make_unique<TuningStore>(library.config()));
  if (TuningStore::instance->error) throw *TuningStore::instance->error;
  return *TuningStore::instance;
}

}  // namespace

const TuningParameters& tuning_parameters() { return tuning_store().parameters; }

std::uint64_t tuning_parameters_fingerprint() { return tuning_store().fingerprint; }

}  // namespace mpix
