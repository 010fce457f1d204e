#include "src/request.hpp"

#include "src/error.hpp"

namespace mpix {

Request::Request(std::shared_ptr<const Comm> comm, std::string algorithm,
                 std::unique_ptr<PersistentOperation> operation)
    : comm_(std::move(comm)), algorithm_(std::move(algorithm)), operation_(std::move(operation)) {}

void Request::start() {
  if (active_) throw Error(MPI_ERR_REQUEST, "request is already active (started and not yet completed)");
  operation_->start();
  active_ = true;
}

bool Request::test() {
  if (!active_) return true;
  // An operation that fails is over: the request goes back to inactive.
  active_ = false;
  const bool done = operation_->test();
  active_ = !done;
  return done;
}

void Request::wait() {
  if (!active_) return;
  active_ = false;
  operation_->wait();
}

}  // namespace mpix
