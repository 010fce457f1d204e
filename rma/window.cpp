#include "rma/window.hpp"

#include <unistd.h>

#include <cstdio>

#include "rma/node_memory.hpp"
#include "src/error.hpp"

namespace mpix {

namespace {

constexpr int tag_post = 1;
constexpr int tag_done = 2;

// What every rank publishes about its part of the window.
struct Published {
  long long pid;
  long long address;
  long long size;
  long long disp_unit;
  long long probe;
  // Created windows over MPIX_Alloc_mem memory: the segment peers can map
  // (fd -1 otherwise).
  long long segment_fd;
  long long segment_serial;
  long long segment_offset;
  long long segment_size;
};
constexpr int published_fields = sizeof(Published) / sizeof(long long);

// The peer's MPIX_Alloc_mem segment mapped here, or null (not in one, or the
// kernel refuses).
std::shared_ptr<PeerMapping> map_segment(const Published& peer) {
  if (peer.segment_fd < 0) return nullptr;
  return NodeMemory::get().peer_segment(static_cast<pid_t>(peer.pid), static_cast<int>(peer.segment_fd),
                                        static_cast<std::uint64_t>(peer.segment_serial),
                                        static_cast<std::size_t>(peer.segment_size));
}

const char* mode_name(DirectTarget::Mode m) {
  switch (m) {
    case DirectTarget::Mode::shm: return "shm";
    case DirectTarget::Mode::cma: return "cma";
    case DirectTarget::Mode::none: return "mpi";
  }
  return "?";
}

}  // namespace

int thread_slot(int slots) {
  static std::atomic<int> next{0};
  thread_local const int mine = next.fetch_add(1);
  return mine % slots;
}

Window::Window(Kind kind, void** base, MPI_Aint size, int disp_unit, int thread_slots,
               std::shared_ptr<const Comm> xcomm, const Config& config)
    : kind_(kind), xcomm_(std::move(xcomm)), cma_min_bytes_(config.cma_min_bytes), node_path_(config.node_path), epoch_(xcomm_->size()) {
  if (size < 0) throw Error(MPI_ERR_SIZE, "size = " + std::to_string(size) + " is negative");
  if (disp_unit <= 0) throw Error(MPI_ERR_DISP, "disp_unit = " + std::to_string(disp_unit) + " is not positive");
  mpi_check(MPI_Comm_dup(xcomm_->global(), comm_.out()), "MPI_Comm_dup");
  mpi_check(MPI_Comm_rank(comm(), &rank_), "MPI_Comm_rank");
  mpi_check(MPI_Comm_group(comm(), group_.out()), "MPI_Comm_group");

  void* memory = kind == Kind::allocated ? nullptr : *base;
  if (kind == Kind::allocated) {
    mpi_check(MPI_Comm_split(comm(), xcomm_->node_id(), rank_, node_comm_.out()), "MPI_Comm_split");
    // Non-contiguous segments start each rank's memory on its own page. With
    // contiguous ones, MPICH 4.0.2 misplaces the MPI_Win_create window we lay
    // over them (puts land 12 bytes off for a 28-byte segment).
    UniqueInfo noncontig;
    mpi_check(MPI_Info_create(noncontig.out()), "MPI_Info_create");
    mpi_check(MPI_Info_set(noncontig.get(), "alloc_shared_noncontig", "true"), "MPI_Info_set");
    mpi_check(MPI_Win_allocate_shared(size, disp_unit, noncontig.get(), node_comm_.get(), &memory, shm_.out()),
              "MPI_Win_allocate_shared");
    *base = memory;
  }
  auto make = [&](UniqueWin& w) {
    if (kind == Kind::dynamic)
      mpi_check(MPI_Win_create_dynamic(MPI_INFO_NULL, comm(), w.out()), "MPI_Win_create_dynamic");
    else
      mpi_check(MPI_Win_create(memory, size, disp_unit, MPI_INFO_NULL, comm(), w.out()), "MPI_Win_create");
  };
  make(active_);
  mpi_check(MPI_Win_lock_all(MPI_MODE_NOCHECK, active_.get()), "MPI_Win_lock_all");
  passive_.resize(std::max(1, thread_slots));
  for (UniqueWin& w : passive_) make(w);
  counters_.reset(new FlushCounter[passive_.size() * static_cast<std::size_t>(xcomm_->size())]());
  post_sends_.reserve(xcomm_->size());
  exchange_and_choose_paths(memory, size, disp_unit, shm_.get(), config);
}

void Window::exchange_and_choose_paths(void* base, MPI_Aint size, int disp_unit, MPI_Win shm, const Config& config) {
  const int n = xcomm_->size();
  const SegmentLocation segment = kind_ == Kind::created && size > 0
                                      ? NodeMemory::get().locate(base, static_cast<std::size_t>(size))
                                      : SegmentLocation{};
  const Published mine{static_cast<long long>(getpid()),
                       static_cast<long long>(reinterpret_cast<std::uintptr_t>(base)),
                       kind_ == Kind::dynamic ? -1 : static_cast<long long>(size),
                       disp_unit,
                       static_cast<long long>(cma_probe_address()),
                       segment.fd,
                       static_cast<long long>(segment.serial),
                       static_cast<long long>(segment.offset),
                       static_cast<long long>(segment.size)};
  std::vector<Published> all(n);
  mpi_check(MPI_Allgather(&mine, published_fields, MPI_LONG_LONG, all.data(), published_fields, MPI_LONG_LONG,
                          comm()),
            "MPI_Allgather");

  remotes_.resize(n);
  const bool want_shm = config.node_path == NodePath::automatic || config.node_path == NodePath::shm;
  allow_cma_from_peers();  // memory-handle windows may use CMA later
  std::string why_not;
  for (int r = 0; r < n; ++r) {
    Remote& remote = remotes_[r];
    remote.size = all[r].size;
    remote.disp_unit = static_cast<int>(all[r].disp_unit);
    if (kind_ == Kind::dynamic || config.node_path == NodePath::mpi || !xcomm_->same_node(r)) continue;
    DirectTarget& d = remote.direct;
    if (shm != MPI_WIN_NULL && want_shm) {
      MPI_Aint peer_size = 0;
      int peer_unit = 0;
      void* peer_base = nullptr;
      mpi_check(MPI_Win_shared_query(shm, xcomm_->node_rank_of(r), &peer_size, &peer_unit, &peer_base),
                "MPI_Win_shared_query");
      d.mode = DirectTarget::Mode::shm;
      d.shm_base = static_cast<char*>(peer_base);
    } else if (r == rank_ && base != nullptr) {
      d.mode = DirectTarget::Mode::shm;  // my own memory: a plain copy
      d.shm_base = static_cast<char*>(base);
    } else if (want_shm && (remote.segment = map_segment(all[r]))) {
      d.mode = DirectTarget::Mode::shm;  // MPIX_Alloc_mem memory: load/store
      d.shm_base = remote.segment->base() + all[r].segment_offset;
    } else if (config.node_path != NodePath::shm &&
               cma_reachable(static_cast<pid_t>(all[r].pid), all[r].probe, why_not)) {
      // User memory: CMA from MPIX_CMA_MIN_BYTES up (direct_eligible), where
      // one system call beats MPICH's on-node put.
      d.mode = DirectTarget::Mode::cma;
      d.pid = static_cast<pid_t>(all[r].pid);
      d.address = static_cast<std::uintptr_t>(all[r].address);
    }
  }
  const DirectTarget::Mode self = remotes_[rank_].direct.mode;
  DirectTarget::Mode node = DirectTarget::Mode::none;
  for (int r = 0; r < n; ++r)
    if (r != rank_ && xcomm_->same_node(r)) node = remotes_[r].direct.mode;
  paths_ = std::string("self:") + mode_name(self) + " node:" + mode_name(node) + " off-node:mpi";
  if (config.verbose >= 1 && !why_not.empty())
    std::fprintf(stderr, "mpix-rma (window rank %d): on-node targets use MPI RMA: %s\n", rank_, why_not.c_str());
}

Window::~Window() { free_windows(); }

void Window::free() {
  free_windows();
  epoch_.mark_freed();
}

void Window::free_windows() noexcept {
  if (!active_) return;
  // A window freed inside a user epoch (at MPI_Finalize, say) is closed first:
  // MPI_Win_free inside an epoch is erroneous.
  if (epoch_.access() == AccessEpoch::lock_all)
    for (UniqueWin& w : passive_) MPI_Win_unlock_all(w.get());
  if (epoch_.access() == AccessEpoch::lock)
    for (int r = 0; r < size(); ++r)
      for (UniqueWin& w : passive_) MPI_Win_unlock(r, w.get());
  if (fence_barrier_ != MPI_REQUEST_NULL) MPI_Wait(&fence_barrier_, MPI_STATUS_IGNORE);
  MPI_Waitall(static_cast<int>(complete_sends_.size()), complete_sends_.data(), MPI_STATUSES_IGNORE);
  if (active_) MPI_Win_unlock_all(active_.get());
  for (const MPI_Request& r : post_sends_) {
    MPI_Request copy = r;
    MPI_Wait(&copy, MPI_STATUS_IGNORE);
  }
  passive_.clear();
  active_.reset();
  shm_.reset();
  group_.reset();
}

std::string Window::paths() const { return paths_; }

std::vector<int> Window::ranks_of(MPI_Group group) const {
  epoch_.check_alive();
  if (group == MPI_GROUP_NULL) throw Error(MPI_ERR_GROUP, "group is MPI_GROUP_NULL");
  int n = 0;
  mpi_check(MPI_Group_size(group, &n), "MPI_Group_size");
  std::vector<int> in(n), out(n);
  for (int i = 0; i < n; ++i) in[i] = i;
  mpi_check(MPI_Group_translate_ranks(group, n, in.data(), group_.get(), out.data()), "MPI_Group_translate_ranks");
  for (int r : out)
    if (r == MPI_UNDEFINED) throw Error(MPI_ERR_GROUP, "group holds a process outside the window's communicator");
  return out;
}

MPI_Win Window::passive_window(const WinSettings& s) const {
  return passive_[s.thread_scope ? thread_slot(thread_slots()) : 0].get();
}

MPI_Win Window::mpi_window(const WinSettings& s) const { return epoch_.passive() ? passive_window(s) : active_.get(); }

DirectRoute Window::route_of(const Transfer& t) const {
  epoch_.check_alive();
  if (t.target < 0 || t.target >= size())
    throw Error(MPI_ERR_RANK, "target_rank = " + std::to_string(t.target) + " is not in [0, " +
                                  std::to_string(size()) + ")");
  const TransferShape shape = shape_of(t);
  const Remote& remote = remotes_[t.target];
  const MPI_Aint offset = t.disp * remote.disp_unit;
  if (remote.size >= 0 && (t.disp < 0 || offset + shape.span > remote.size))
    throw Error(MPI_ERR_RMA_RANGE, "target_disp = " + std::to_string(t.disp) + " with " +
                                       std::to_string(t.target_count) + " elements reaches past the " +
                                       std::to_string(remote.size) + "-byte window of rank " +
                                       std::to_string(t.target));
  if (!direct_eligible(remote.direct, shape)) return {nullptr, 0, shape.bytes};
  return {&remote.direct, offset, shape.bytes};
}

bool Window::direct_eligible(const DirectTarget& d, const TransferShape& shape) const {
  return d.mode != DirectTarget::Mode::none && shape.contiguous &&
         (d.mode == DirectTarget::Mode::shm || static_cast<long>(shape.bytes) >= cma_min_bytes_);
}

Window::FlushCounter& Window::counter(int slot, int target) const {
  return counters_[slot * static_cast<std::size_t>(size()) + target];
}

int Window::slot_of(const WinSettings& s) const { return s.thread_scope ? thread_slot(thread_slots()) : 0; }

// A flush covers the operations issued before it started: it records the
// issue count it saw once the MPI flush returns. A thread whose operations
// are all covered by a finished flush (its own or another thread's) skips
// the MPI call.
void Window::flush_counted(int slot, int target, MPI_Win w) {
  FlushCounter& c = counter(slot, target);
  const std::uint64_t seen = c.issued.load();
  if (c.completed.load() >= seen) return;
  mpi_check(MPI_Win_flush(target, w), "MPI_Win_flush");
  mark_completed(c, seen);
}

void Window::mark_completed(FlushCounter& c, std::uint64_t seen) {
  std::uint64_t done = c.completed.load();
  while (done < seen && !c.completed.compare_exchange_weak(done, seen)) {
  }
}

void Window::before_operation(const WinSettings& s, int target) {
  activate();
  epoch_.check_access(target);
  epoch_.note_operation();
  // Ordered windows: an MPI-path operation still in flight to this target
  // completes before the next one starts (MPI offers nothing cheaper).
  if (s.ordered) flush_counted(slot_of(s), target, mpi_window(s));
}

void Window::after_mpi_operation(const WinSettings& s, int target) { ++counter(slot_of(s), target).issued; }

void Window::after_direct_operation(const WinSettings& s) {
  // Direct copies are complete on return; ordered windows also keep their
  // stores from being reordered with the next operation's.
  if (s.ordered) std::atomic_thread_fence(std::memory_order_release);
}

bool Window::any_unflushed(int target) const {
  for (int slot = 0; slot < thread_slots(); ++slot) {
    const FlushCounter& c = counter(slot, target);
    if (c.completed.load() < c.issued.load()) return true;
  }
  return false;
}

void Window::mark_all_completed(int target) {
  for (int r = target < 0 ? 0 : target; r < (target < 0 ? size() : target + 1); ++r)
    for (int slot = 0; slot < thread_slots(); ++slot) {
      FlushCounter& c = counter(slot, r);
      mark_completed(c, c.issued.load());
    }
}

void Window::put(const WinSettings& s, const Transfer& t) { move(Direction::put, s, t, route_of(t)); }

void Window::get(const WinSettings& s, const Transfer& t) { move(Direction::get, s, t, route_of(t)); }

void Window::move(Direction d, const WinSettings& s, const Transfer& t, const DirectRoute& route) {
  before_operation(s, t.target);
  if (route.target != nullptr) {
    if (d == Direction::put)
      route.target->put(route.offset, t.origin, route.bytes);
    else
      route.target->get(route.offset, t.origin, route.bytes);
    after_direct_operation(s);
    return;
  }
  if (d == Direction::put)
    mpi_check(MPI_Put(t.origin, t.origin_count, t.origin_type, t.target, t.disp, t.target_count, t.target_type,
                      mpi_window(s)),
              "MPI_Put");
  else
    mpi_check(MPI_Get(t.origin, t.origin_count, t.origin_type, t.target, t.disp, t.target_count, t.target_type,
                      mpi_window(s)),
              "MPI_Get");
  after_mpi_operation(s, t.target);
}

void Window::accumulate(const WinSettings& s, const Transfer& t, MPI_Op op) {
  // Always the MPI path: MPI makes accumulates atomic with respect to each
  // other, which direct copies from several origins could not be.
  route_of(t);
  if (op == MPI_OP_NULL) throw Error(MPI_ERR_OP, "op is MPI_OP_NULL");
  before_operation(s, t.target);
  mpi_check(MPI_Accumulate(t.origin, t.origin_count, t.origin_type, t.target, t.disp, t.target_count,
                           t.target_type, op, mpi_window(s)),
            "MPI_Accumulate");
  after_mpi_operation(s, t.target);
}

MPI_Request Window::rput(const WinSettings& s, const Transfer& t) {
  epoch_.check_passive(t.target);  // request-based RMA: passive target only
  const DirectRoute direct = route_of(t);
  if (direct.target != nullptr) {
    move(Direction::put, s, t, direct);
    return MPI_REQUEST_NULL;
  }
  before_operation(s, t.target);
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Rput(t.origin, t.origin_count, t.origin_type, t.target, t.disp, t.target_count, t.target_type,
                     mpi_window(s), &request),
            "MPI_Rput");
  after_mpi_operation(s, t.target);
  return request;
}

void Window::fence(int assert) {
  activate();
  epoch_.fence((assert & MPI_MODE_NOSUCCEED) == 0);
  if ((assert & MPI_MODE_NOPRECEDE) == 0) mpi_check(MPI_Win_flush_all(active_.get()), "MPI_Win_flush_all");
  mark_all_completed(-1);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  mpi_check(MPI_Barrier(comm()), "MPI_Barrier");
  after_remote_writes();
}

void Window::ifence_begin(int assert) {
  activate();
  epoch_.fence((assert & MPI_MODE_NOSUCCEED) == 0);
  if ((assert & MPI_MODE_NOPRECEDE) == 0) mpi_check(MPI_Win_flush_all(active_.get()), "MPI_Win_flush_all");
  mark_all_completed(-1);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  std::lock_guard<std::mutex> lock(activation_mutex_);
  mpi_check(MPI_Ibarrier(comm(), &fence_barrier_), "MPI_Ibarrier");
  activating_.store(true, std::memory_order_release);
}

bool Window::test_fence() {
  std::lock_guard<std::mutex> lock(activation_mutex_);
  if (fence_barrier_ == MPI_REQUEST_NULL) return true;
  int done = 0;
  mpi_check(MPI_Test(&fence_barrier_, &done, MPI_STATUS_IGNORE), "MPI_Test");
  if (!done) return false;
  activating_.store(false, std::memory_order_release);
  after_remote_writes();
  return true;
}

void Window::activate() {
  if (!activating_.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> lock(activation_mutex_);
  if (fence_barrier_ != MPI_REQUEST_NULL) {
    mpi_check(MPI_Wait(&fence_barrier_, MPI_STATUS_IGNORE), "MPI_Wait");
    after_remote_writes();
  }
  finish_complete_locked();
  activating_.store(false, std::memory_order_release);
}

void Window::post(const std::vector<int>& origins, int assert) {
  // Exposure epochs do not wait for this process's pending access epochs.
  epoch_.post(origins);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  after_remote_writes();
  if (assert & MPI_MODE_NOCHECK) return;  // the matching start skips its wait too
  for (int origin : origins) {
    post_sends_.push_back(MPI_REQUEST_NULL);
    mpi_check(MPI_Isend(nullptr, 0, MPI_BYTE, origin, tag_post, comm(), &post_sends_.back()), "MPI_Isend");
  }
}

void Window::start(const std::vector<int>& targets, int assert) {
  activate();
  epoch_.start(targets);
  if (assert & MPI_MODE_NOCHECK) return;
  for (int target : targets)
    mpi_check(MPI_Recv(nullptr, 0, MPI_BYTE, target, tag_post, comm(), MPI_STATUS_IGNORE), "MPI_Recv");
}

void Window::icomplete_begin() {
  activate();
  std::lock_guard<std::mutex> lock(activation_mutex_);
  // Taken before complete() clears them, without a copy (a persistent PSCW
  // Alltoallv calls this every iteration); outside a start epoch they are
  // empty, so a complete() that throws has added nothing.
  const std::vector<int>& targets = epoch_.pscw_targets();
  completing_.insert(completing_.end(), targets.begin(), targets.end());
  epoch_.complete();
  activating_.store(true, std::memory_order_release);
}

void Window::finish_complete_locked() {
  if (completing_.empty()) return;
  // Only targets that MPI operations went to need a flush (which, on this
  // MPICH, may wait for the target's progress); direct copies are done.
  for (int target : completing_)
    if (any_unflushed(target)) {
      mpi_check(MPI_Win_flush(target, active_.get()), "MPI_Win_flush");
      mark_all_completed(target);
    }
  std::atomic_thread_fence(std::memory_order_seq_cst);
  for (int target : completing_) {
    complete_sends_.push_back(MPI_REQUEST_NULL);
    mpi_check(MPI_Isend(nullptr, 0, MPI_BYTE, target, tag_done, comm(), &complete_sends_.back()), "MPI_Isend");
  }
  completing_.clear();
}

bool Window::test_complete() {
  std::lock_guard<std::mutex> lock(activation_mutex_);
  finish_complete_locked();
  int done = 0;
  mpi_check(MPI_Testall(static_cast<int>(complete_sends_.size()), complete_sends_.data(), &done, MPI_STATUSES_IGNORE),
            "MPI_Testall");
  if (done) complete_sends_.clear();
  return done != 0;
}

void Window::wait_complete() {
  std::lock_guard<std::mutex> lock(activation_mutex_);
  finish_complete_locked();
  mpi_check(MPI_Waitall(static_cast<int>(complete_sends_.size()), complete_sends_.data(), MPI_STATUSES_IGNORE),
            "MPI_Waitall");
  complete_sends_.clear();
}

void Window::complete() {
  icomplete_begin();
  wait_complete();
}

void Window::iwait_begin(std::vector<MPI_Request>& receives) {
  // Exposure epochs do not wait for this process's pending access epochs.
  // wait() clears the origins: kept in a member whose capacity is reused.
  waited_origins_.assign(epoch_.pscw_origins().begin(), epoch_.pscw_origins().end());
  epoch_.wait();
  receives.assign(waited_origins_.size() + post_sends_.size(), MPI_REQUEST_NULL);
  for (std::size_t i = 0; i < waited_origins_.size(); ++i)
    mpi_check(MPI_Irecv(nullptr, 0, MPI_BYTE, waited_origins_[i], tag_done, comm(), &receives[i]), "MPI_Irecv");
  // The post tokens of this exposure epoch complete with it.
  std::copy(post_sends_.begin(), post_sends_.end(),
            receives.begin() + static_cast<long>(waited_origins_.size()));
  post_sends_.clear();
}

void Window::wait() {
  std::vector<MPI_Request> receives;
  iwait_begin(receives);
  mpi_check(MPI_Waitall(static_cast<int>(receives.size()), receives.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  after_remote_writes();
}

void Window::lock(int lock_type, int target, int assert) {
  activate();
  epoch_.check_alive();
  if (target < 0 || target >= size()) throw Error(MPI_ERR_RANK, "rank = " + std::to_string(target) + " out of range");
  if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE)
    throw Error(MPI_ERR_LOCKTYPE, "lock_type is neither MPI_LOCK_SHARED nor MPI_LOCK_EXCLUSIVE");
  epoch_.lock(target);
  for (UniqueWin& w : passive_) mpi_check(MPI_Win_lock(lock_type, target, assert, w.get()), "MPI_Win_lock");
}

void Window::unlock(int target) {
  activate();
  if (target < 0 || target >= size()) throw Error(MPI_ERR_RANK, "rank = " + std::to_string(target) + " out of range");
  epoch_.unlock(target);
  for (UniqueWin& w : passive_) mpi_check(MPI_Win_unlock(target, w.get()), "MPI_Win_unlock");
  mark_all_completed(target);
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

void Window::lock_all(int assert) {
  activate();
  epoch_.lock_all();
  for (UniqueWin& w : passive_) mpi_check(MPI_Win_lock_all(assert, w.get()), "MPI_Win_lock_all");
}

void Window::unlock_all() {
  activate();
  epoch_.unlock_all();
  for (UniqueWin& w : passive_) mpi_check(MPI_Win_unlock_all(w.get()), "MPI_Win_unlock_all");
  mark_all_completed(-1);
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

void Window::flush(const WinSettings& s, int target, bool local) {
  activate();
  if (target < 0 || target >= size()) throw Error(MPI_ERR_RANK, "rank = " + std::to_string(target) + " out of range");
  epoch_.check_passive(target);
  // Only MPI windows with operations in flight to target are flushed: direct
  // copies are already complete, so their flushes cost nothing.
  for (int slot = 0; slot < thread_slots(); ++slot) {
    if (s.thread_scope && slot != slot_of(s)) continue;
    if (!local) {
      flush_counted(slot, target, passive_[slot].get());
    } else if (any_unflushed(target)) {
      mpi_check(MPI_Win_flush_local(target, passive_[slot].get()), "MPI_Win_flush_local");
    }
  }
}

void Window::flush_all(const WinSettings& s, bool local) {
  activate();
  epoch_.check_alive();
  if (!epoch_.passive()) epoch_.check_passive(0);
  for (int slot = 0; slot < thread_slots(); ++slot) {
    if (s.thread_scope && slot != slot_of(s)) continue;
    MPI_Win w = passive_[slot].get();
    if (local) {
      mpi_check(MPI_Win_flush_local_all(w), "MPI_Win_flush_local_all");
      continue;
    }
    for (int r = 0; r < size(); ++r) flush_counted(slot, r, w);
  }
}

void Window::sync() {
  activate();
  epoch_.check_alive();
  std::atomic_thread_fence(std::memory_order_seq_cst);
  for (UniqueWin& w : passive_)
    if (epoch_.passive()) mpi_check(MPI_Win_sync(w.get()), "MPI_Win_sync");
  after_remote_writes();
}

void Window::attach(void* base, MPI_Aint size) {
  epoch_.check_alive();
  if (kind_ != Kind::dynamic) throw Error(MPI_ERR_WIN, "attach needs a window from MPIX_Win_create_dynamic");
  mpi_check(MPI_Win_attach(active_.get(), base, size), "MPI_Win_attach");
  for (UniqueWin& w : passive_) mpi_check(MPI_Win_attach(w.get(), base, size), "MPI_Win_attach");
}

void Window::detach(const void* base) {
  epoch_.check_alive();
  if (kind_ != Kind::dynamic) throw Error(MPI_ERR_WIN, "detach needs a window from MPIX_Win_create_dynamic");
  mpi_check(MPI_Win_detach(active_.get(), base), "MPI_Win_detach");
  for (UniqueWin& w : passive_) mpi_check(MPI_Win_detach(w.get(), base), "MPI_Win_detach");
}

}  // namespace mpix
