#include "src/request.hpp"

#include "src/error.hpp"

namespace mpix {

Request::Request(std::shared_ptr<const Comm> comm, std::string algorithm,
                 std::unique_ptr<PersistentOperation> operation)
    : comm_(std::move(comm)),
      algorithm_(std::move(algorithm)),
      operation_(std::move(operation)),
      runner_(operation_.get()),
      may_settle_(operation_->forwards()) {}

std::unique_ptr<Request> Request::started(std::shared_ptr<const Comm> comm, std::string name,
                                          std::unique_ptr<PersistentOperation> operation) {
  auto r = std::make_unique<Request>(std::move(comm), std::move(name), std::move(operation));
  r->active_ = true;
  r->restartable_ = false;
  return r;
}

std::string Request::algorithm() const {
  const char* running = operation_->running_algorithm();
  return running != nullptr ? running : algorithm_;
}

void Request::start() {
  if (!restartable_) throw Error(MPI_ERR_REQUEST, "request of a nonblocking RMA call cannot be restarted");
  if (active_) throw Error(MPI_ERR_REQUEST, "request is already active (started and not yet completed)");
  runner_->start();
  active_ = true;
}

bool Request::test() {
  if (!active_) return true;
  // An operation that fails is over: the request goes back to inactive.
  active_ = false;
  const bool done = runner_->test();
  active_ = !done;
  if (done) settle();
  return done;
}

void Request::wait() {
  if (!active_) return;
  active_ = false;
  runner_->wait();
  settle();
}

void Request::settle() {
  if (!may_settle_) return;
  if (PersistentOperation* chosen = operation_->settled_on()) {
    runner_ = chosen;
    may_settle_ = false;
  }
}

}  // namespace mpix
