// Process-wide state of the library: the parsed configuration, the error
// classes, and every object handed to the user, so that all of it is freed
// when MPI_Finalize starts (an MPI window alive at finalize aborts inside UCX).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "src/config.hpp"
#include "src/error.hpp"
#include "src/topology.hpp"

namespace mpix {

// Anything the library hands out and must destroy at finalize at the latest.
class Resource {
 public:
  Resource() { ++live_; }
  Resource(const Resource&) = delete;
  Resource& operator=(const Resource&) = delete;
  virtual ~Resource() { --live_; }
  // How many exist in this process: 0 after MPI_Finalize, whatever the user
  // forgot to free.
  static int live_count() { return live_; }

 private:
  static inline std::atomic<int> live_{0};
};

class Library {
 public:
  // Creates the library state on first use; throws if MPI is not initialized
  // or already finalized.
  static Library& get();
  // The library state if it exists (MPI is initialized and not finalized,
  // and the library was used): no lock, no MPI call, for the per-call
  // checks of handles.
  static Library* alive();

  // The configuration, or the Error (class MPIX_ERR_CONFIG) it failed with.
  const Configuration& configuration() const;
  const Config& config() const { return configuration().values(); }
  const Topology& topology();

  // The library owns r until release(r) or MPI_Finalize, whichever is first.
  template <class T>
  T* adopt(std::unique_ptr<T> r) {
    T* raw = r.get();
    std::lock_guard<std::mutex> lock(mutex_);
    live_.emplace(raw, next_serial_);
    resources_.emplace(next_serial_++, std::move(r));
    return raw;
  }
  // Destroys r; false if r is not a live object of this library.
  bool release(const Resource* r);
  // Whether r is a live object of this library (not freed, not foreign):
  // a hash lookup, so every call on a handle can check it.
  bool owns(const Resource* r);

  // Once per process: names set MPIX_* variables that the table lacks.
  void warn_unknown_variables();

 private:
  Library();
  static int on_finalize(MPI_Comm, int, void*, void*);

  std::mutex mutex_;
  std::map<std::uint64_t, std::unique_ptr<Resource>> resources_;  // by creation serial: freed newest first
  std::unordered_map<const Resource*, std::uint64_t> live_;       // each live resource's serial
  std::uint64_t next_serial_ = 0;
  std::optional<Configuration> configuration_;
  std::optional<Error> configuration_error_;
  std::optional<Topology> topology_;
  std::once_flag warned_unknown_;
};

// The MPI error class of an MPIX_Error_kind, registered on first use.
int error_class(int kind);

}  // namespace mpix
