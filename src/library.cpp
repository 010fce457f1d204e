#include "src/library.hpp"

#include <mpix/mpix.h>

#include <array>
#include <cstdio>

#include "src/mpi_implementation.hpp"

namespace mpix {

std::atomic<Library*> library_instance{nullptr};

namespace {

std::mutex library_mutex;

constexpr std::array<const char*, MPIX_ERRKIND_COUNT_> error_class_names = {
    "MPIX_ERR_CONFIG: invalid MPIX_* environment variable",
    "MPIX_ERR_ALGORITHM: unknown or unsupported algorithm",
};
std::once_flag error_classes_once;
std::array<int, MPIX_ERRKIND_COUNT_> error_classes{};
std::array<int, MPIX_ERRKIND_COUNT_> error_codes{};

void check_mpi_usable() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized)
    throw Error(MPI_ERR_OTHER, finalized ? "MPI is already finalized" : "MPI is not initialized");
}

}  // namespace

namespace {
void register_error_classes() {
  check_mpi_usable();
  std::call_once(error_classes_once, [] {
    for (int k = 0; k < MPIX_ERRKIND_COUNT_; ++k)
      mpi_implementation::add_error_class(error_class_names[k], &error_classes[k], &error_codes[k]);
  });
}
}  // namespace

int error_class(int kind) {
  if (kind < 0 || kind >= MPIX_ERRKIND_COUNT_) return MPI_ERR_ARG;
  register_error_classes();
  return error_classes[kind];
}

int error_code(int kind) {
  if (kind < 0 || kind >= MPIX_ERRKIND_COUNT_) return MPI_ERR_ARG;
  register_error_classes();
  return error_codes[kind];
}

Library& Library::get() {
  if (Library* existing = library_instance.load(std::memory_order_acquire)) return *existing;
  std::lock_guard<std::mutex> lock(library_mutex);
  check_mpi_usable();
  if (library_instance.load() == nullptr) library_instance.store(new Library(), std::memory_order_release);
  return *library_instance.load();
}

Library::Library() {
  // The delete callback of an attribute on MPI_COMM_SELF runs first thing in
  // MPI_Finalize, while MPI is still fully usable: the standard's hook for
  // libraries to clean up.
  int keyval = MPI_KEYVAL_INVALID;
  mpi_check(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &Library::on_finalize, &keyval, nullptr),
            "MPI_Comm_create_keyval");
  mpi_check(MPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr), "MPI_Comm_set_attr");
  mpi_check(MPI_Comm_free_keyval(&keyval), "MPI_Comm_free_keyval");
  try {
    configuration_ = Configuration::from_process_environment();
  } catch (const ConfigError& e) {
    configuration_error_.emplace(error_code(MPIX_ERRKIND_CONFIG), e.what());
  }
}

int Library::on_finalize(MPI_Comm, int, void*, void*) {
  std::unique_ptr<Library> dying;
  {
    std::lock_guard<std::mutex> lock(library_mutex);
    dying.reset(library_instance.exchange(nullptr));
  }
  if (dying) {
    // Newest first: requests go before the communicators they use.
    for (std::unique_ptr<Resource>& r : dying->resources_.take_all()) r.reset();
  }
  return MPI_SUCCESS;
}

const Configuration& Library::configuration() const {
  if (configuration_error_) throw *configuration_error_;
  return *configuration_;
}

const Topology& Library::topology() {
  std::lock_guard<std::mutex> lock(topology_mutex_);
  if (!topology_) topology_ = Topology::load();
  return *topology_;
}

void Library::warn_unknown_variables() {
  std::call_once(warned_unknown_, [this] {
    if (!configuration_) return;
    for (const std::string& name : configuration_->unknown_variables())
      std::fprintf(stderr, "mpix-rma warning: %s is set but is not an mpix-rma variable (see mpix_info)\n",
                   name.c_str());
  });
}

}  // namespace mpix
