// One window over the memory of every rank of a communicator, with two
// paths to each target: direct copies for targets on this node (shared
// memory or CMA), MPI RMA for the others.
//
// The MPI path uses two kinds of MPI windows over the same memory:
//  - `active`: kept in an internal lock_all for its whole life. Fence and
//    post/start/complete/wait are built on it from flushes, a barrier and
//    zero-byte messages (ActiveTarget, active_target.hpp), which is what
//    lets their nonblocking variants return without waiting for a late
//    peer.
//  - `passive`: the user's lock / lock_all epochs, one MPI window per thread
//    slot when the window is thread-scope capable, so a thread's flush waits
//    only for the operations it issued; FlushLedger (flush_ledger.hpp)
//    counts what each flush still has to complete.
//
// Direct copies complete on return, except an ordered window's CMA puts in a
// program below MPI_THREAD_MULTIPLE: those queue (CmaWriteQueue) until an
// operation that does not queue or a synchronization call, which issues
// them first, in order, with one system call.
#pragma once

#include <mpi.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "node/cma_write_queue.hpp"
#include "node/direct_copy.hpp"
#include "rma/active_target.hpp"
#include "rma/epoch.hpp"
#include "rma/flush_ledger.hpp"
#include "rma/ordered_path_choice.hpp"
#include "node/shared_segment.hpp"
#include "rma/transfer.hpp"
#include "src/comm.hpp"
#include "rma/window_config.hpp"
#include "src/error.hpp"
#include "src/mpi_handle.hpp"

namespace mpix {

// The thread slot of the calling thread, in [0, slots).
int thread_slot(int slots);

// Per-handle semantics (duplicates of one window may differ).
struct WinSettings {
  bool thread_scope = false;
  bool ordered = false;
};


// The direct path a transfer takes: target null means the MPI path.
struct DirectRoute {
  const DirectTarget* target = nullptr;
  MPI_Aint offset = 0;
  std::size_t bytes = 0;
};

class Window {
 public:
  enum class Direction { put, get };
  // When a direct put must be complete: on return (MPIX_Rput's local
  // completion), or by the next synchronization call, as MPI allows.
  enum class Completion { on_return, by_synchronization };
  enum class Kind { created, allocated, dynamic };

  // The local argument checks of a window's creation (throws Error), which
  // callers agree on before any rank enters the constructor's collectives.
  static void check_arguments(MPI_Aint size, int disp_unit);
  // The local check that a window of this kind can be made on comm here
  // (throws Error), agreed on as check_arguments. On an MPI whose one-sided
  // transport needs CMA, where the kernel refuses CMA between this
  // machine's processes, MPI RMA into their memory waits forever: windows
  // over user memory are refused, and allocated ones where some of this
  // machine's processes are on another (emulated) node, beyond load/store.
  static void check_machine_allows(Kind kind, const Comm& comm);
  // Collective over comm; its arguments passed check_arguments on every
  // rank. thread_slots > 1 makes the window thread-scope capable. For
  // allocated windows *base receives the memory.
  Window(Kind kind, void** base, MPI_Aint size, int disp_unit, int thread_slots, std::shared_ptr<const Comm> comm,
         const Config& config);
  ~Window();
  // Collective; afterwards every call on the window is MPI_ERR_WIN.
  void free();
  // Handles that share this window besides its original (duplicates and
  // memory-handle windows): the original cannot be freed before them.
  std::atomic<int> dependents{0};
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  Kind kind() const { return kind_; }
  // Dynamic windows: a secret the window's ranks drew together at its
  // creation, the key of its memory handles' seals (rma/memhandle.hpp).
  const std::array<std::uint64_t, 2>& handle_key() const { return handle_key_; }
  MPI_Comm comm() const { return comm_.get(); }
  int rank() const { return rank_; }
  int size() const { return static_cast<int>(remotes_.size()); }
  int thread_slots() const { return static_cast<int>(passive_.size()); }
  Epoch& epoch() { return epoch_; }
  // "shm", "cma", "mpi" per target class, e.g. "self:shm node:cma off-node:mpi".
  std::string paths() const;

  // Data movement.
  void put(const WinSettings& s, const Transfer& t);
  void get(const WinSettings& s, const Transfer& t);
  void accumulate(const WinSettings& s, const Transfer& t, MPI_Op op);
  // MPI_Get_accumulate: the target's old contents (target_count elements of
  // target_type) into result, then op with t's origin (ignored for
  // MPI_NO_OP, an atomic read). Always the MPI path, as accumulate.
  void get_accumulate(const WinSettings& s, const Transfer& t, void* result, MPI_Op op);
  // Moves t by route (memory-handle windows choose their own); for the MPI
  // path, t.disp counts the target's disp_units (mpi_displacement makes it
  // MPI's byte displacement).
  void move(Direction d, const WinSettings& s, const Transfer& t, const DirectRoute& route,
            Completion completion = Completion::by_synchronization);
  // MPI_REQUEST_NULL when the transfer went the direct path (already done).
  MPI_Request rput(const WinSettings& s, const Transfer& t);

  // Synchronization (blocking). Active target: ActiveTarget's.
  // Every synchronization call first issues the queued puts (queued_puts_).
  void fence(int assert) {
    issue_queued_puts();
    active_target_->fence(assert);
  }
  void post(const std::vector<int>& origins, int assert) {
    issue_queued_puts();
    active_target_->post(origins, assert);
  }
  void start(const std::vector<int>& targets, int assert) {
    issue_queued_puts();
    active_target_->start(targets, assert);
  }
  void complete() {
    issue_queued_puts();
    active_target_->complete();
  }
  void wait() {
    issue_queued_puts();
    active_target_->wait();
  }
  void lock(int lock_type, int target, int assert);
  void unlock(int target);
  void lock_all(int assert);
  void unlock_all();
  void flush(const WinSettings& s, int target, bool local);
  void flush_all(const WinSettings& s, bool local);
  void sync();

  // Nonblocking building blocks: the local part runs now, the rest is a set
  // of MPI requests the caller completes.
  // ifence: the local part now; the epoch becomes active when the barrier
  // completes (test_fence / activate). Operations and synchronization calls
  // issued before that wait for it, so epochs activate in order.
  void ifence_begin(int assert) {
    issue_queued_puts();
    active_target_->ifence_begin(assert);
  }
  bool test_fence() { return active_target_->test_fence(); }
  void activate() { active_target_->activate(); }
  // icomplete: closes the access epoch now; the flush of its MPI-path
  // targets and the "done" tokens follow in test_complete / wait_complete
  // (or the next call on the window), so the call never waits for a target.
  void icomplete_begin() {
    issue_queued_puts();
    active_target_->icomplete_begin();
  }
  bool test_complete() { return active_target_->test_complete(); }
  void wait_complete() { active_target_->wait_complete(); }
  void iwait_begin(std::vector<MPI_Request>& receives) {
    issue_queued_puts();
    active_target_->iwait_begin(receives);
  }
  void after_remote_writes() { active_target_->after_remote_writes(); }

  // Dynamic windows.
  void attach(void* base, MPI_Aint size);
  void detach(const void* base);

  // Translates ranks of group (of the window's communicator) to window ranks.
  std::vector<int> ranks_of(MPI_Group group) const;
  bool same_node(int rank) const { return xcomm_->same_node(rank); }
  NodePath node_path() const { return node_path_; }
  PtracePeers ptrace_peers() const { return ptrace_peers_; }
  // The path a transfer of this shape takes to a target whose direct path
  // is d, at offset in its memory. Shared memory takes every contiguous
  // transfer. CMA takes transfers from MPIX_CMA_MIN_BYTES up; below, MPI
  // puts, which a batch can share one flush, are faster. An ordered window
  // completes every operation before the next, where queued CMA copies and
  // MPI's flushed operations trade places by MPI, thread level and machine
  // phase: there the window's own first transfers decide
  // (OrderedPathChoice), unless MPIX_NODE_PATH forces CMA.
  DirectRoute route_to(const DirectTarget& d, MPI_Aint offset, const TransferShape& shape, const WinSettings& s) {
    const DirectRoute mpi{nullptr, 0, shape.bytes}, direct{&d, offset, shape.bytes};
    if (d.mode == DirectTarget::Mode::none || !shape.contiguous) return mpi;
    if (d.mode == DirectTarget::Mode::shm) return direct;
    if (!s.ordered) return static_cast<long>(shape.bytes) >= cma_min_bytes_ ? direct : mpi;
    if (node_path_ == NodePath::cma) return direct;
    const OrderedPathChoice::Pick pick = ordered_path_.pick();
    if (pick.opens_block >= 0) open_ordered_block(s, pick.opens_block);
    return pick.direct ? direct : mpi;
  }
  // The path of ordered transfers to CMA targets (OrderedPathChoice::describe).
  std::string ordered_path() const { return ordered_path_.describe(); }
  MPI_Win passive_window(const WinSettings& s) const { return passive_[slot_of(s)].get(); }

 private:
  struct Remote {
    MPI_Aint size = -1;  // -1: unknown (dynamic)
    int disp_unit = 1;
    MPI_Aint mpi_lead = 0;  // bytes from the start of its MPI window to its memory
    DirectTarget direct;
    std::shared_ptr<PeerMapping> segment;  // the target's MPIX_Alloc_mem segment, mapped here
  };

  void exchange_and_choose_paths(void* base, MPI_Aint size, int disp_unit, MPI_Win shm, const Config& config);
  // The MPI windows' base alignment (see the constructor) and t's byte
  // displacement in its target's MPI window.
  static constexpr std::uintptr_t mpi_window_alignment = 16;
  MPI_Aint mpi_displacement(const Transfer& t) const {
    const Remote& remote = remotes_[t.target];
    return t.disp * remote.disp_unit + remote.mpi_lead;
  }
  // The MPI window an operation goes through: passive pool or active.
  MPI_Win mpi_window(const WinSettings& s) const { return epoch_.passive() ? passive_window(s) : active_.get(); }
  // Throws MPI_ERR_RANK / MPI_ERR_RMA_RANGE / MPI_ERR_TYPE for transfers
  // outside the target window. Inline, with its messages out of line: every
  // operation passes here.
  DirectRoute route_of(const WinSettings& s, const Transfer& t) {
    const CheckedTransfer checked = check_transfer(t);
    return route_to(remotes_[t.target].direct, checked.offset, checked.shape, s);
  }
  // The checks alone (accumulates always take the MPI path), and t's byte
  // offset in its target's memory.
  struct CheckedTransfer {
    TransferShape shape;
    MPI_Aint offset;
  };
  CheckedTransfer check_transfer(const Transfer& t) const {
    epoch_.check_alive();
    if (t.target < 0 || t.target >= size()) throw_target_rank_error(t.target, size());
    const TransferShape shape = shape_of(t);
    const Remote& remote = remotes_[t.target];
    const MPI_Aint offset = t.disp * remote.disp_unit;
    if (remote.size >= 0 && (t.disp < 0 || offset + shape.span > remote.size)) throw_range_error(t, remote.size);
    return {shape, offset};
  }
  [[noreturn]] static void throw_target_rank_error(int target, int size);
  [[noreturn]] static void throw_range_error(const Transfer& t, MPI_Aint window_bytes);
  // Around every operation, inline: on the MPI path they are all the
  // library adds to MPI's own call. An operation that is not queued first
  // issues the queued puts; a queued one (queues_put) joins them.
  void before_operation(const WinSettings& s, int target, bool queued = false) {
    activate();
    epoch_.check_access(target);
    epoch_.note_operation();
    if (!queued) issue_queued_puts();
    // Ordered windows: an MPI-path operation still in flight to this target
    // completes before the next one starts (MPI offers nothing cheaper).
    if (s.ordered) ledger_->flush(slot_of(s), target, mpi_window(s));
  }
  void after_mpi_operation(const WinSettings& s, int target) { ledger_->issued(slot_of(s), target); }
  // Completes this thread's transfers in flight, then stamps block's start
  // (OrderedPathChoice): each measured block pays for its own transfers.
  void open_ordered_block(const WinSettings& s, int block);
  void after_direct_operation(const WinSettings& s) {
    // Direct copies are complete on return; ordered windows also keep their
    // stores from being reordered with the next operation's.
    if (s.ordered) std::atomic_thread_fence(std::memory_order_release);
  }
  // Ordered windows queue their CMA puts (CmaWriteQueue: one system call for
  // several, in order) until the next operation that is not queued or the
  // next synchronization call. Under MPI_THREAD_MULTIPLE the threads share
  // the queue under queue_mutex_: MPI orders nothing between threads, the
  // mutex gives the queue one order, and a flush on any thread issues every
  // thread's puts, as MPI's flush completes them. Issued one system call
  // each, a put and its flag cost two calls, more than MPI's put + flush.
  bool queues_put(const WinSettings& s, const DirectTarget& d, Completion completion) const {
    return queue_ordered_puts_ && s.ordered && d.mode == DirectTarget::Mode::cma &&
           completion == Completion::by_synchronization;
  }
  // Lock-free when nothing is queued: a put another thread queued without
  // synchronizing with this one is not ordered before this call anyway.
  void issue_queued_puts() {
    if (queued_puts_.empty()) return;
    std::unique_lock<std::mutex> lock(queue_mutex_, std::defer_lock);
    if (queue_shared_) lock.lock();
    if (!queued_puts_.empty()) queued_puts_.issue();
  }
  void queue_put(pid_t pid, std::uintptr_t address, const void* origin, std::size_t bytes) {
    std::unique_lock<std::mutex> lock(queue_mutex_, std::defer_lock);
    if (queue_shared_) lock.lock();
    queued_puts_.add(pid, address, origin, bytes);
  }
  int slot_of(const WinSettings& s) const { return s.thread_scope ? thread_slot(thread_slots()) : 0; }
  void free_windows() noexcept;
  // MPI_ERR_RANK unless target is a rank of the window (the rank argument of
  // flush, lock and unlock).
  void check_rank(int target) const {
    if (target < 0 || target >= size()) throw_rank_out_of_range(target);
  }
  [[noreturn]] static void throw_rank_out_of_range(int target);

  Kind kind_;
  std::shared_ptr<const Comm> xcomm_;
  UniqueComm comm_;      // private: PSCW tokens and fence barriers
  UniqueComm node_comm_;  // allocated windows: the shared-memory segment's communicator
  UniqueGroup group_;
  int rank_ = 0;
  UniqueWin shm_;
  UniqueWin active_;
  std::vector<UniqueWin> passive_;
  std::vector<Remote> remotes_;
  MPI_Aint mpi_lead_ = 0;  // this rank's Remote::mpi_lead
  long cma_min_bytes_ = 0;
  NodePath node_path_ = NodePath::automatic;
  PtracePeers ptrace_peers_ = PtracePeers::widen;
  bool queue_ordered_puts_ = false;
  bool queue_shared_ = false;  // MPI_THREAD_MULTIPLE: queued_puts_ under queue_mutex_
  std::mutex queue_mutex_;
  CmaWriteQueue queued_puts_;
  Epoch epoch_;
  std::unique_ptr<FlushLedger> ledger_;  // which MPI-path operations a flush still has to complete
  OrderedPathChoice ordered_path_;
  std::unique_ptr<ActiveTarget> active_target_;  // fence and PSCW on active_
  std::string paths_;
  std::array<std::uint64_t, 2> handle_key_{};
};

}  // namespace mpix
