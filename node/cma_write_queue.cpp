#include "node/cma_write_queue.hpp"

#include <cerrno>
#include <cstring>
#include <string>

#include "src/error.hpp"

namespace mpix {

void CmaWriteQueue::issue() {
  const int count = count_;
  count_ = 0;
  // Local and remote iovecs pair up with equal lengths, so a short call
  // (a signal, a page limit) resumes both at the same element and offset.
  int first = 0;
  while (first < count) {
    const ssize_t n = process_vm_writev(pid_, &local_[first], count - first, &remote_[first], count - first, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw Error(MPI_ERR_OTHER,
                  "process_vm_writev to pid " + std::to_string(pid_) + " failed: " + std::strerror(errno));
    std::size_t done = static_cast<std::size_t>(n);
    while (first < count && done >= local_[first].iov_len) done -= local_[first++].iov_len;
    if (done > 0) {
      for (std::array<iovec, capacity>* v : {&local_, &remote_}) {
        iovec& element = (*v)[first];
        element.iov_base = static_cast<char*>(element.iov_base) + done;
        element.iov_len -= done;
      }
    }
  }
}

}  // namespace mpix
