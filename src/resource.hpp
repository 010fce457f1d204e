// Anything the library hands out and must destroy at MPI_Finalize at the
// latest: the objects behind handles, and the process-wide services.
#pragma once

#include <atomic>
#include <cstdint>

namespace mpix {

class Resource {
 public:
  Resource() : serial_(next_serial_.fetch_add(1, std::memory_order_relaxed)) { live_.fetch_add(1); }
  Resource(const Resource&) = delete;
  Resource& operator=(const Resource&) = delete;
  virtual ~Resource() { live_.fetch_sub(1); }

  // How many exist in this process: 0 after MPI_Finalize, whatever the user
  // forgot to free.
  static int live_count() { return live_.load(); }
  // Creation order: at finalize the newest go first, so a request goes
  // before the communicator it was built on.
  std::uint64_t serial() const { return serial_; }

 private:
  const std::uint64_t serial_;
  static inline std::atomic<std::uint64_t> next_serial_{0};
  static inline std::atomic<int> live_{0};
};

}  // namespace mpix
