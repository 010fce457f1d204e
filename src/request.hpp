// A persistent request: MPI's state machine (inactive -> active -> inactive)
// around one PersistentOperation that an algorithm implements.
#pragma once

#include <memory>
#include <string>

#include "src/comm.hpp"

namespace mpix {

// A collective's status: empty, as MPI defines it for MPI_Wait on one (the
// C API's and the drop-in's completions give it alike).
inline void set_empty_status(MPI_Status* status) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = MPI_ANY_SOURCE;
  status->MPI_TAG = MPI_ANY_TAG;
  status->MPI_ERROR = MPI_SUCCESS;
  MPI_Status_set_elements_x(status, MPI_BYTE, 0);
  MPI_Status_set_cancelled(status, 0);
}

// What an algorithm implements. Construction does all set-up (collective);
// start/test/wait run every iteration and must not allocate.
class PersistentOperation {
 public:
  virtual ~PersistentOperation() = default;
  virtual void start() = 0;
  // Makes progress; true once the operation is complete.
  virtual bool test() = 0;
  virtual void wait() = 0;
  // The registry name of what runs now, when the operation chooses it
  // itself (auto); nullptr: the name the request was made with.
  virtual const char* running_algorithm() const { return nullptr; }
  // False while the operation is still choosing what runs (auto's
  // tournament): what runs now is a trial.
  virtual bool settled() const { return true; }
  // An operation that only forwards to another once it has made up its mind
  // (auto) says so, and then names that one: the request calls it directly,
  // so that choosing costs nothing per iteration. Asked after each
  // completion while it forwards: the operation to call directly, and in
  // quiet_starts for how many Starts (0: from now on); nullptr: it must
  // see the next Start itself. Once those Starts are over, the request
  // forwards again and first calls resumed_after with their number, so the
  // forwarding operation's count of Starts stays the request's.
  virtual bool forwards() const { return false; }
  virtual PersistentOperation* settled_on(long& quiet_starts) {
    quiet_starts = 0;
    return nullptr;
  }
  virtual void resumed_after(long) {}
  // Points the next starts at other buffers laid out like the ones given at
  // init (sendbuf MPI_IN_PLACE again if it was). Local. Only operations made
  // with buffers_move are asked; an algorithm whose data path depends on the
  // buffers' addresses refuses such arguments at init instead.
  virtual void rebind(const void* sendbuf, void* recvbuf);
};

class Request {
 public:
  Request(std::shared_ptr<const Comm> comm, std::string algorithm,
          std::unique_ptr<PersistentOperation> operation, bool buffers_move = false);
  // A one-shot request (nonblocking RMA calls): already active, its work
  // already begun; once complete it stays inactive and cannot be restarted.
  static std::unique_ptr<Request> started(std::shared_ptr<const Comm> comm, std::string name,
                                          std::unique_ptr<PersistentOperation> operation);

  void start();  // MPI_ERR_REQUEST if already active
  // start() on other buffers of the init layout: MPI_ERR_REQUEST unless the
  // request was made with buffers_move.
  void start_with(const void* sendbuf, void* recvbuf);
  bool test();   // true when inactive or just completed
  void wait();   // returns at once when inactive

  bool active() const { return active_; }
  std::string algorithm() const;
  bool settled() const { return operation_->settled(); }
  const Comm& comm() const { return *comm_; }

 private:
  void settle();
  void resume();

  std::shared_ptr<const Comm> comm_;
  std::string algorithm_;
  std::unique_ptr<PersistentOperation> operation_;
  PersistentOperation* runner_;  // operation_, or what it settled on
  bool may_settle_;
  long quiet_left_ = 0;   // Starts runner_ still runs by itself before operation_ sees them again (0: for good)
  long quiet_starts_ = 0;  // how many it was given
  bool buffers_move_;
  bool active_ = false;
  bool restartable_ = true;
};

}  // namespace mpix
