// The set of live Resources, keyed by the address of the whole object, so
// that any handle the user passes can be checked before it is dereferenced:
// live, and of the type the call expects (a freed handle's memory may hold
// an object of another type by now).
//
// Every call on a handle checks it, and threads may call at once (an
// MPI_THREAD_MULTIPLE code issuing MPIX_Rput from several threads), so the
// set is split into independently locked stripes by address: a check costs
// one hash lookup under the lock of its stripe, whatever the number of live
// handles, and two threads contend only when their handles share a stripe.
// The removal count lets a caller skip even that: a handle found live stays
// live until something is removed (see Library::owns).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "src/resource.hpp"

namespace mpix {

class ResourceRegistry {
 public:
  void add(std::unique_ptr<Resource> r);
  // The Resource whose object starts at address, no longer registered; null
  // if there is none. The address is never dereferenced.
  std::unique_ptr<Resource> remove(const void* address);
  // The live Resource whose object starts at address, or null.
  const Resource* find(const void* address) const;
  // Everything registered, newest first; the registry is left empty.
  std::vector<std::unique_ptr<Resource>> take_all();
  // How many removals (remove, take_all) any registry of this process has
  // started: a Resource found live while this was n is still live while it
  // is n. Read-mostly, so checking it shares a cache line, never a lock.
  static std::uint64_t removals() { return removals_.load(std::memory_order_acquire); }

 private:
  static constexpr std::size_t stripe_count = 64;
  struct alignas(64) Stripe {
    mutable std::mutex mutex;
    std::unordered_map<const void*, std::unique_ptr<Resource>> members;
  };
  Stripe& stripe_of(const void* address) const;

  mutable std::array<Stripe, stripe_count> stripes_;
  static inline std::atomic<std::uint64_t> removals_{0};
};

}  // namespace mpix
