// Set while this thread runs the drop-in: every MPI call the library makes
// underneath (its native algorithms, its own persistent and point-to-point
// requests, their waits) is MPI's own, and the entry points pass it to
// PMPI_ at once. Initial-exec TLS: no __tls_get_addr call on every MPI
// call (the library is preloaded or linked, so it has static TLS).
#pragma once

namespace mpix::intercept {

extern __attribute__((tls_model("initial-exec"))) thread_local bool inside_drop_in;

// Nests: the drop-in's own path may reach a part that sets it again.
class InsideDropIn {
 public:
  InsideDropIn() : was_(inside_drop_in) { inside_drop_in = true; }
  ~InsideDropIn() { inside_drop_in = was_; }
  InsideDropIn(const InsideDropIn&) = delete;
  InsideDropIn& operator=(const InsideDropIn&) = delete;

 private:
  bool was_;
};

}  // namespace mpix::intercept
