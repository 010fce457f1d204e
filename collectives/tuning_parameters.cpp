#include "collectives/tuning_parameters.hpp"

#include <mpix/mpix.h>

#include <memory>
#include <optional>
#include <string>

#include "collectives/alltoallv_init.hpp"
#include "collectives/registry.hpp"
#include "selector/tuning_file.hpp"
#include "src/library.hpp"

namespace mpix {

namespace {

// The parameters of this process: a library service, freed with the
// library at MPI_Finalize.
class TuningStore final : public Resource {
 public:
  explicit TuningStore(Library& library) {
    const Config& config = library.config();
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
  TuningParameters parameters;
  std::uint64_t fingerprint = 0;
  std::optional<Error> error;
};

const TuningStore& tuning_store() {
  const TuningStore& store = Library::get().service<TuningStore>();
  if (store.error) throw *store.error;
  return store;
}

}  // namespace

const TuningParameters& tuning_parameters() { return tuning_store().parameters; }

std::uint64_t tuning_parameters_fingerprint() { return tuning_store().fingerprint; }

}  // namespace mpix
