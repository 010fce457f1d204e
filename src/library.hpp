// Process-wide state of the library: the parsed configuration, the error
// classes, the process-wide services and every object handed to the user,
// so that all of it is freed when MPI_Finalize starts (an MPI window alive
// at finalize aborts inside UCX).
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <typeindex>
#include <unordered_map>

#include "src/config.hpp"
#include "src/error.hpp"
#include "src/resource.hpp"
#include "src/resource_registry.hpp"
#include "src/topology.hpp"

namespace mpix {

class Library;
// The library state. Destroyed when MPI_Finalize starts, never by a
// destructor at process exit: a process that exits without MPI_Finalize
// (exit(1) on bad input) must not free windows there, since freeing one is
// collective and the other ranks are not coming. The operating system takes
// back what such a process held. Declared here so that the per-call check
// of a handle (alive) is inline.
extern std::atomic<Library*> library_instance;

class Library {
 public:
  // The library state, created on first use; throws if MPI is not
  // initialized or already finalized. Once it exists this is one atomic
  // load: MPI's state is checked when it is created, and the state dies
  // when MPI_Finalize starts.
  static Library& get();
  // The library state if it exists (MPI is initialized and not finalized,
  // and the library was used), else null: for the per-call checks of handles.
  static Library* alive() { return library_instance.load(std::memory_order_acquire); }

  // The configuration, or the Error (class MPIX_ERR_CONFIG) it failed with.
  const Configuration& configuration() const;
  const Config& config() const { return configuration().values(); }
  const Topology& topology();

  // The library owns r until release(r) or MPI_Finalize, whichever is first.
  template <class T>
  T* adopt(std::unique_ptr<T> r) {
    T* raw = r.get();
    resources_.add(std::move(r));
    return raw;
  }
  // Whether handle is a live object of this library and a T (not freed, not
  // foreign, not another kind of handle now living at a freed one's
  // address), in O(1) and without a process-wide lock: every call on a
  // handle checks. handle is dereferenced only once it is known live.
  // A thread remembers the last handle of each type it found live: while no
  // Resource has been removed since, the same handle is still that live
  // object, and the check is two compares and one shared load.
  template <class T>
  bool owns(const T* handle) const {
    thread_local const T* last_live = nullptr;
    thread_local std::uint64_t last_removals = 0;
    const std::uint64_t removals = ResourceRegistry::removals();
    if (handle != nullptr && handle == last_live && removals == last_removals) return true;
    const Resource* found = resources_.find(static_cast<const void*>(handle));
    if (found == nullptr || dynamic_cast<const T*>(found) != handle) return false;
    last_live = handle;
    last_removals = removals;
    return true;
  }
  // Destroys handle; false if it is not a live T of this library.
  template <class T>
  bool release(const T* handle) {
    return owns(handle) && resources_.remove(static_cast<const void*>(handle)) != nullptr;
  }

  // The one instance per process of the service T (the tuning parameters,
  // the node's shared memory), made as T(*this) on first use and destroyed
  // at MPI_Finalize with the other resources, newest first. Not for hot
  // paths: callers look it up when they are created.
  template <class T>
  T& service() {
    const std::type_index key(typeid(T));
    std::lock_guard<std::recursive_mutex> lock(services_mutex_);
    if (const auto found = services_.find(key); found != services_.end()) return static_cast<T&>(*found->second);
    T* made = adopt(std::make_unique<T>(*this));
    services_.emplace(key, made);
    return *made;
  }

  // Once per process: names set MPIX_* variables that the table lacks.
  void warn_unknown_variables();

 private:
  Library();
  static int on_finalize(MPI_Comm, int, void*, void*);

  ResourceRegistry resources_;
  std::recursive_mutex services_mutex_;  // a service's constructor may ask for another
  std::unordered_map<std::type_index, Resource*> services_;
  std::mutex topology_mutex_;
  std::optional<Configuration> configuration_;
  std::optional<Error> configuration_error_;
  std::optional<Topology> topology_;
  std::once_flag warned_unknown_;
};

// The MPI error class of an MPIX_Error_kind, registered on first use.
int error_class(int kind);
// The error code the library raises for an MPIX_Error_kind: one code of
// its class, whose MPI_Error_class is that class. Raising the class itself
// would lose it on Open MPI 4.1, whose MPI_Error_class maps a user-added
// class (not a code of it) to MPI_ERR_UNKNOWN.
int error_code(int kind);

}  // namespace mpix
