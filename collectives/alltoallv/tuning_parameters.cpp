#include "collectives/alltoallv/tuning_parameters.hpp"

#include <mpix/mpix.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "collectives/alltoallv/config.hpp"
#include "collectives/alltoallv/family.hpp"
#include "collectives/registry.hpp"
#include "selector/tuning_file.hpp"
#include "src/library.hpp"
#include "src/mpi_implementation.hpp"

namespace mpix {

namespace {

// One tuning file's parameters, or why they cannot be used.
struct LoadedTuning {
  TuningParameters parameters;
  std::uint64_t fingerprint = 0;
  std::optional<Error> error;
};

LoadedTuning load(const std::string& tuning_file) {
  LoadedTuning loaded;
  try {
    loaded.parameters = builtin_tuning();
    std::vector<std::string> registered;
    for (const AlltoallvAlgorithm* row : alltoallv_algorithms())
      if (!row->has(capability::selects)) registered.emplace_back(row->name);
    if (!tuning_file.empty()) loaded.parameters = read_tuning_file(tuning_file, loaded.parameters, &registered);
    // The parameters price MPI's own calls and its RMA, which differ between
    // implementations: a file measured with another one is refused, not
    // laid over this MPI's defaults. (Versions of one MPI are close enough
    // for a prior that the tournament corrects.)
    const std::string here = mpi_implementation::name();
    if (!loaded.parameters.mpi.empty() &&
        mpi_implementation::family_of(loaded.parameters.mpi) != mpi_implementation::family_of(here))
      throw TuningFileError(tuning_file + ": measured with " + loaded.parameters.mpi + ", but this library runs on " +
                            here + "; measure this MPI with mpix_tune");
    loaded.fingerprint = tuning_fingerprint(loaded.parameters);
  } catch (const TuningFileError& e) {
    loaded.error.emplace(error_code(MPIX_ERRKIND_CONFIG), std::string("MPIX_TUNING_FILE: ") + e.what());
  }
  return loaded;
}

// The parameters of every tuning file this process used: a library
// service, freed with the library at MPI_Finalize. Entries never move
// (std::map), so references stay valid.
class TuningStore final : public Resource {
 public:
  explicit TuningStore(Library&) {}
  const LoadedTuning& of(const std::string& tuning_file) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = loaded_.find(tuning_file);
    if (found == loaded_.end()) found = loaded_.emplace(tuning_file, load(tuning_file)).first;
    return found->second;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, LoadedTuning> loaded_;
};

const LoadedTuning& tuning_of(const Config& config) {
  const LoadedTuning& loaded =
      Library::get().service<TuningStore>().of(config.section<AlltoallvConfig>().tuning_file);
  if (loaded.error) throw *loaded.error;
  return loaded;
}

}  // namespace

const TuningParameters& tuning_parameters(const Config& config) { return tuning_of(config).parameters; }

std::uint64_t tuning_parameters_fingerprint(const Config& config) { return tuning_of(config).fingerprint; }

}  // namespace mpix
