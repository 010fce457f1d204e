#include "rma/window.hpp"

#include <unistd.h>

#include <cstdio>

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
};

struct TypeShape {
  MPI_Count size = 0;
  MPI_Aint extent = 0;
  bool contiguous = false;
};

TypeShape shape_of(MPI_Datatype type, const char* argument) {
  if (type == MPI_DATATYPE_NULL) throw Error(MPI_ERR_TYPE, std::string(argument) + " is MPI_DATATYPE_NULL");
  TypeShape s;
  MPI_Aint lb = 0, true_lb = 0, true_extent = 0;
  mpi_check(MPI_Type_size_x(type, &s.size), "MPI_Type_size_x");
  mpi_check(MPI_Type_get_extent(type, &lb, &s.extent), "MPI_Type_get_extent");
  mpi_check(MPI_Type_get_true_extent(type, &true_lb, &true_extent), "MPI_Type_get_true_extent");
  s.contiguous = lb == 0 && true_lb == 0 && s.size == s.extent && s.size == true_extent;
  return s;
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
    : kind_(kind), xcomm_(std::move(xcomm)), cma_min_bytes_(config.cma_min_bytes), epoch_(xcomm_->size()) {
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
  pending_.reset(new std::atomic<bool>[passive_.size() * static_cast<std::size_t>(xcomm_->size())]());
  post_sends_.reserve(xcomm_->size());
  exchange_and_choose_paths(memory, size, disp_unit, shm_.get(), config);
}

void Window::exchange_and_choose_paths(void* base, MPI_Aint size, int disp_unit, MPI_Win shm, const Config& config) {
  const int n = xcomm_->size();
  const Published mine{static_cast<long long>(getpid()), static_cast<long long>(reinterpret_cast<std::uintptr_t>(base)),
                       kind_ == Kind::dynamic ? -1 : static_cast<long long>(size), disp_unit,
                       static_cast<long long>(cma_probe_address())};
  std::vector<Published> all(n);
  mpi_check(MPI_Allgather(&mine, 5, MPI_LONG_LONG, all.data(), 5, MPI_LONG_LONG, comm()), "MPI_Allgather");

  remotes_.resize(n);
  const bool want_cma = config.node_path == NodePath::automatic || config.node_path == NodePath::cma;
  const bool want_shm = config.node_path == NodePath::automatic || config.node_path == NodePath::shm;
  if (want_cma) allow_cma_from_peers();
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
    } else if (want_cma && cma_reachable(static_cast<pid_t>(all[r].pid), all[r].probe, why_not)) {
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

MPI_Win Window::route(const WinSettings& s) const { return epoch_.passive() ? passive_window(s) : active_.get(); }

const DirectTarget* Window::direct_for(const Transfer& t, std::size_t& bytes, MPI_Aint& offset) const {
  epoch_.check_alive();
  if (t.target < 0 || t.target >= size())
    throw Error(MPI_ERR_RANK, "target_rank = " + std::to_string(t.target) + " is not in [0, " +
                                  std::to_string(size()) + ")");
  if (t.origin_count < 0 || t.target_count < 0) throw Error(MPI_ERR_COUNT, "count is negative");
  const TypeShape origin = shape_of(t.origin_type, "origin_datatype");
  const TypeShape target = shape_of(t.target_type, "target_datatype");
  if (origin.size * t.origin_count != target.size * t.target_count)
    throw Error(MPI_ERR_TYPE, "origin moves " + std::to_string(origin.size * t.origin_count) +
                                  " bytes but the target side describes " +
                                  std::to_string(target.size * t.target_count));
  const Remote& remote = remotes_[t.target];
  offset = t.disp * remote.disp_unit;
  bytes = static_cast<std::size_t>(target.size * t.target_count);
  if (remote.size >= 0 && (t.disp < 0 || offset + t.target_count * target.extent > remote.size))
    throw Error(MPI_ERR_RMA_RANGE, "target_disp = " + std::to_string(t.disp) + " with " +
                                       std::to_string(t.target_count) + " elements reaches past the " +
                                       std::to_string(remote.size) + "-byte window of rank " +
                                       std::to_string(t.target));
  const DirectTarget& d = remote.direct;
  const bool eligible = d.mode != DirectTarget::Mode::none && origin.contiguous && target.contiguous &&
                        (d.mode == DirectTarget::Mode::shm || static_cast<long>(bytes) >= cma_min_bytes_);
  return eligible ? &d : nullptr;
}

void Window::before_operation(const WinSettings& s, int target) {
  epoch_.check_access(target);
  epoch_.note_operation();
  if (!s.ordered) return;
  // Ordered windows: an MPI-path operation still in flight to this target
  // completes before the next one starts (MPI offers nothing cheaper).
  const int slot = s.thread_scope ? thread_slot(thread_slots()) : 0;
  std::atomic<bool>& pending = pending_[slot * static_cast<std::size_t>(size()) + target];
  if (pending.exchange(false)) mpi_check(MPI_Win_flush(target, route(s)), "MPI_Win_flush");
}

void Window::after_mpi_operation(const WinSettings& s, int target) {
  if (!s.ordered) return;
  const int slot = s.thread_scope ? thread_slot(thread_slots()) : 0;
  pending_[slot * static_cast<std::size_t>(size()) + target].store(true);
}

void Window::after_direct_operation(const WinSettings& s) {
  // Direct copies are complete on return; ordered windows also keep their
  // stores from being reordered with the next operation's.
  if (s.ordered) std::atomic_thread_fence(std::memory_order_release);
}

void Window::clear_pending(int target) {
  for (int slot = 0; slot < thread_slots(); ++slot) {
    if (target >= 0) {
      pending_[slot * static_cast<std::size_t>(size()) + target].store(false);
      continue;
    }
    for (int r = 0; r < size(); ++r) pending_[slot * static_cast<std::size_t>(size()) + r].store(false);
  }
}

void Window::put(const WinSettings& s, const Transfer& t) {
  std::size_t bytes = 0;
  MPI_Aint offset = 0;
  const DirectTarget* direct = direct_for(t, bytes, offset);
  before_operation(s, t.target);
  if (direct != nullptr) {
    direct->put(offset, t.origin, bytes);
    after_direct_operation(s);
    return;
  }
  mpi_check(MPI_Put(t.origin, t.origin_count, t.origin_type, t.target, t.disp, t.target_count, t.target_type,
                    route(s)),
            "MPI_Put");
  after_mpi_operation(s, t.target);
}

void Window::get(const WinSettings& s, const Transfer& t) {
  std::size_t bytes = 0;
  MPI_Aint offset = 0;
  const DirectTarget* direct = direct_for(t, bytes, offset);
  before_operation(s, t.target);
  if (direct != nullptr) {
    direct->get(offset, t.origin, bytes);
    after_direct_operation(s);
    return;
  }
  mpi_check(MPI_Get(t.origin, t.origin_count, t.origin_type, t.target, t.disp, t.target_count, t.target_type,
                    route(s)),
            "MPI_Get");
  after_mpi_operation(s, t.target);
}

void Window::accumulate(const WinSettings& s, const Transfer& t, MPI_Op op) {
  // Always the MPI path: MPI makes accumulates atomic with respect to each
  // other, which direct copies from several origins could not be.
  std::size_t bytes = 0;
  MPI_Aint offset = 0;
  direct_for(t, bytes, offset);
  if (op == MPI_OP_NULL) throw Error(MPI_ERR_OP, "op is MPI_OP_NULL");
  before_operation(s, t.target);
  mpi_check(MPI_Accumulate(t.origin, t.origin_count, t.origin_type, t.target, t.disp, t.target_count,
                           t.target_type, op, route(s)),
            "MPI_Accumulate");
  after_mpi_operation(s, t.target);
}

MPI_Request Window::rput(const WinSettings& s, const Transfer& t) {
  epoch_.check_passive(t.target);  // request-based RMA: passive target only
  std::size_t bytes = 0;
  MPI_Aint offset = 0;
  const DirectTarget* direct = direct_for(t, bytes, offset);
  before_operation(s, t.target);
  if (direct != nullptr) {
    direct->put(offset, t.origin, bytes);
    after_direct_operation(s);
    return MPI_REQUEST_NULL;
  }
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Rput(t.origin, t.origin_count, t.origin_type, t.target, t.disp, t.target_count, t.target_type,
                     route(s), &request),
            "MPI_Rput");
  after_mpi_operation(s, t.target);
  return request;
}

void Window::fence(int assert) {
  epoch_.fence((assert & MPI_MODE_NOSUCCEED) == 0);
  if ((assert & MPI_MODE_NOPRECEDE) == 0) mpi_check(MPI_Win_flush_all(active_.get()), "MPI_Win_flush_all");
  clear_pending(-1);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  mpi_check(MPI_Barrier(comm()), "MPI_Barrier");
  after_remote_writes();
}

void Window::ifence_begin(int assert, MPI_Request* barrier) {
  epoch_.fence((assert & MPI_MODE_NOSUCCEED) == 0);
  if ((assert & MPI_MODE_NOPRECEDE) == 0) mpi_check(MPI_Win_flush_all(active_.get()), "MPI_Win_flush_all");
  clear_pending(-1);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  mpi_check(MPI_Ibarrier(comm(), barrier), "MPI_Ibarrier");
}

void Window::post(const std::vector<int>& origins, int assert) {
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
  epoch_.start(targets);
  if (assert & MPI_MODE_NOCHECK) return;
  for (int target : targets)
    mpi_check(MPI_Recv(nullptr, 0, MPI_BYTE, target, tag_post, comm(), MPI_STATUS_IGNORE), "MPI_Recv");
}

void Window::icomplete_begin(std::vector<MPI_Request>& sends) {
  const std::vector<int> targets = epoch_.pscw_targets();
  epoch_.complete();
  for (int target : targets) mpi_check(MPI_Win_flush(target, active_.get()), "MPI_Win_flush");
  clear_pending(-1);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  sends.assign(targets.size(), MPI_REQUEST_NULL);
  for (std::size_t i = 0; i < targets.size(); ++i)
    mpi_check(MPI_Isend(nullptr, 0, MPI_BYTE, targets[i], tag_done, comm(), &sends[i]), "MPI_Isend");
}

void Window::complete() {
  std::vector<MPI_Request> sends;
  icomplete_begin(sends);
  mpi_check(MPI_Waitall(static_cast<int>(sends.size()), sends.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
}

void Window::iwait_begin(std::vector<MPI_Request>& receives) {
  const std::vector<int> origins = epoch_.pscw_origins();
  epoch_.wait();
  receives.assign(origins.size() + post_sends_.size(), MPI_REQUEST_NULL);
  for (std::size_t i = 0; i < origins.size(); ++i)
    mpi_check(MPI_Irecv(nullptr, 0, MPI_BYTE, origins[i], tag_done, comm(), &receives[i]), "MPI_Irecv");
  // The post tokens of this exposure epoch complete with it.
  std::copy(post_sends_.begin(), post_sends_.end(), receives.begin() + static_cast<long>(origins.size()));
  post_sends_.clear();
}

void Window::wait() {
  std::vector<MPI_Request> receives;
  iwait_begin(receives);
  mpi_check(MPI_Waitall(static_cast<int>(receives.size()), receives.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  after_remote_writes();
}

void Window::lock(int lock_type, int target, int assert) {
  epoch_.check_alive();
  if (target < 0 || target >= size()) throw Error(MPI_ERR_RANK, "rank = " + std::to_string(target) + " out of range");
  if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE)
    throw Error(MPI_ERR_LOCKTYPE, "lock_type is neither MPI_LOCK_SHARED nor MPI_LOCK_EXCLUSIVE");
  epoch_.lock(target);
  for (UniqueWin& w : passive_) mpi_check(MPI_Win_lock(lock_type, target, assert, w.get()), "MPI_Win_lock");
}

void Window::unlock(int target) {
  if (target < 0 || target >= size()) throw Error(MPI_ERR_RANK, "rank = " + std::to_string(target) + " out of range");
  epoch_.unlock(target);
  for (UniqueWin& w : passive_) mpi_check(MPI_Win_unlock(target, w.get()), "MPI_Win_unlock");
  clear_pending(target);
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

void Window::lock_all(int assert) {
  epoch_.lock_all();
  for (UniqueWin& w : passive_) mpi_check(MPI_Win_lock_all(assert, w.get()), "MPI_Win_lock_all");
}

void Window::unlock_all() {
  epoch_.unlock_all();
  for (UniqueWin& w : passive_) mpi_check(MPI_Win_unlock_all(w.get()), "MPI_Win_unlock_all");
  clear_pending(-1);
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

void Window::flush(const WinSettings& s, int target, bool local) {
  if (target < 0 || target >= size()) throw Error(MPI_ERR_RANK, "rank = " + std::to_string(target) + " out of range");
  epoch_.check_passive(target);
  auto one = [&](MPI_Win w) {
    mpi_check(local ? MPI_Win_flush_local(target, w) : MPI_Win_flush(target, w), "MPI_Win_flush");
  };
  if (s.thread_scope) {
    one(passive_window(s));
  } else {
    for (UniqueWin& w : passive_) one(w.get());
  }
  if (!local) clear_pending(target);
}

void Window::flush_all(const WinSettings& s, bool local) {
  epoch_.check_alive();
  if (!epoch_.passive()) epoch_.check_passive(0);
  auto one = [&](MPI_Win w) { mpi_check(local ? MPI_Win_flush_local_all(w) : MPI_Win_flush_all(w), "MPI_Win_flush_all"); };
  if (s.thread_scope) {
    one(passive_window(s));
  } else {
    for (UniqueWin& w : passive_) one(w.get());
  }
  if (!local) clear_pending(-1);
}

void Window::sync() {
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
