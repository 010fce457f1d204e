#include "src/request.hpp"

#include "src/error.hpp"

namespace mpix {

void PersistentOperation::rebind(const void*, void*) {
  throw Error(MPI_ERR_INTERN, "this operation's buffers cannot move");
}

Request::Request(std::shared_ptr<const Comm> comm, std::string algorithm,
                 std::unique_ptr<PersistentOperation> operation, bool buffers_move)
    : comm_(std::move(comm)),
      algorithm_(std::move(algorithm)),
      operation_(std::move(operation)),
      runner_(operation_.get()),
      may_settle_(operation_->forwards()),
      buffers_move_(buffers_move) {}

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
  if (quiet_left_ > 0 && --quiet_left_ == 0) resume();
  runner_->start();
  active_ = true;
}

// The quiet Starts are over: the forwarding operation sees Starts again.
void Request::resume() {
  runner_ = operation_.get();
  operation_->resumed_after(quiet_starts_);
}

void Request::start_with(const void* sendbuf, void* recvbuf) {
  if (!buffers_move_)
    throw Error(MPI_ERR_REQUEST, "request was made without info mpix_buffers_move=true: its buffers cannot move");
  if (!restartable_) throw Error(MPI_ERR_REQUEST, "request of a nonblocking RMA call cannot be restarted");
  if (active_) throw Error(MPI_ERR_REQUEST, "request is already active (started and not yet completed)");
  // A forwarding operation keeps the buffers for what it may switch to.
  operation_->rebind(sendbuf, recvbuf);
  if (quiet_left_ > 0 && --quiet_left_ == 0) resume();
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
  if (!may_settle_ || runner_ != operation_.get()) return;
  long quiet = 0;
  if (PersistentOperation* chosen = operation_->settled_on(quiet)) {
    runner_ = chosen;
    may_settle_ = quiet > 0;
    // One more than the Starts runner_ runs alone: start() counts down
    // before each Start and resumes at zero.
    quiet_left_ = quiet > 0 ? quiet + 1 : 0;
    quiet_starts_ = quiet;
  }
}

}  // namespace mpix
