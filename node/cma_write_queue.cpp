#include "node/cma_write_queue.hpp"

#include "node/direct_copy.hpp"

namespace mpix {

void CmaWriteQueue::issue() {
  const int count = count_.load(std::memory_order_relaxed);
  count_.store(0, std::memory_order_release);
  cma_copy_vectors(pid_, local_.data(), remote_.data(), count, true);
}

}  // namespace mpix
