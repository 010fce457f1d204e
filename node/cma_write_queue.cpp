#include "node/cma_write_queue.hpp"

#include "node/direct_copy.hpp"

namespace mpix {

void CmaWriteQueue::issue() {
  const int count = count_;
  count_ = 0;
  cma_copy_vectors(pid_, local_.data(), remote_.data(), count, true);
}

}  // namespace mpix
