// Memory handles and the windows made from them. Such a window has one
// target; its operations need a passive epoch opened on the parent window,
// and it allows only data movement and flushes.
#include "rma/memhandle.hpp"

#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <limits>

#include "src/error.hpp"

namespace mpix {

namespace {

// SipHash-2-4 (Aumasson and Bernstein) of the 64-bit words w under key k.
std::uint64_t siphash(const std::uint64_t k[2], const std::uint64_t* w, std::size_t words) {
  std::uint64_t v0 = 0x736f6d6570736575ULL ^ k[0], v1 = 0x646f72616e646f6dULL ^ k[1];
  std::uint64_t v2 = 0x6c7967656e657261ULL ^ k[0], v3 = 0x7465646279746573ULL ^ k[1];
  auto rotl = [](std::uint64_t x, int b) { return (x << b) | (x >> (64 - b)); };
  auto round = [&] {
    v0 += v1, v1 = rotl(v1, 13), v1 ^= v0, v0 = rotl(v0, 32);
    v2 += v3, v3 = rotl(v3, 16), v3 ^= v2;
    v0 += v3, v3 = rotl(v3, 21), v3 ^= v0;
    v2 += v1, v1 = rotl(v1, 17), v1 ^= v2, v2 = rotl(v2, 32);
  };
  auto absorb = [&](std::uint64_t m) {
    v3 ^= m;
    round(), round();
    v0 ^= m;
  };
  for (std::size_t i = 0; i < words; ++i) absorb(w[i]);
  absorb(static_cast<std::uint64_t>(words * 8) << 56);
  v2 ^= 0xff;
  round(), round(), round(), round();
  return v0 ^ v1 ^ v2 ^ v3;
}

std::uint64_t seal_of(const MemhandleData& h, const Window& parent) {
  static_assert(offsetof(MemhandleData, seal) % sizeof(std::uint64_t) == 0, "the sealed fields are whole words");
  std::uint64_t words[offsetof(MemhandleData, seal) / sizeof(std::uint64_t)];
  std::memcpy(words, &h, sizeof words);
  return siphash(parent.handle_key().data(), words, sizeof words / sizeof words[0]);
}

[[noreturn]] void bad_field(const std::string& what) {
  throw Error(MPI_ERR_ARG, "memhandle: " + what + " (corrupted, or not a handle of this parent window)");
}

void require_dynamic(const Window& parent) {
  if (parent.kind() != Window::Kind::dynamic)
    throw Error(MPI_ERR_WIN, "parentwin is not a window from MPIX_Win_create_dynamic");
}

class MemhandleWin final : public WindowHandle {
 public:
  MemhandleWin(std::shared_ptr<Window> parent, std::shared_ptr<const Comm> comm, WinSettings settings,
               const MemhandleData& h, MPI_Aint size, int disp_unit)
      : parent_(std::move(parent)), comm_(std::move(comm)), settings_(settings), handle_(h), size_(size),
        disp_unit_(disp_unit) {
    if (parent_->thread_slots() == 1) settings_.thread_scope = false;
    choose_paths();
  }

  void put(const Transfer& t) override { move(Window::Direction::put, t); }
  void get(const Transfer& t) override { move(Window::Direction::get, t); }
  void accumulate(const Transfer& t, MPI_Op op) override {
    Transfer absolute = t;
    check(absolute);
    parent_->accumulate(settings_, absolute, op);
  }
  std::unique_ptr<Request> rput(const Transfer&, bool) override { unsupported("MPIX_Rput"); }
  void flush(int target, bool local) override {
    check_target(target);
    parent_->flush(settings_, target, local);
  }
  void flush_all(bool local) override { parent_->flush_all(settings_, local); }

  void fence(int) override { unsupported("fence"); }
  void post(MPI_Group, int) override { unsupported("post"); }
  void start(MPI_Group, int) override { unsupported("start"); }
  void complete() override { unsupported("complete"); }
  void wait() override { unsupported("wait"); }
  void lock(int, int, int) override { unsupported("lock"); }
  void unlock(int) override { unsupported("unlock"); }
  void lock_all(int) override { unsupported("lock_all"); }
  void unlock_all() override { unsupported("unlock_all"); }
  void sync() override { parent_->sync(); }
  std::unique_ptr<Request> ifence(int) override { unsupported("ifence"); }
  std::unique_ptr<Request> icomplete() override { unsupported("icomplete"); }
  std::unique_ptr<Request> iwait() override { unsupported("iwait"); }
  void attach(void*, MPI_Aint) override { unsupported("attach"); }
  void detach(const void*) override { unsupported("detach"); }

  Info info() const override {
    Info info;
    info.set(info_key_scope, settings_.thread_scope ? "thread" : "process");
    info.set(info_key_order, settings_.ordered ? "true" : "false");
    info.set("mpix_paths", path_);
    if (settings_.ordered) info.set("mpix_ordered_path", parent_->ordered_path().c_str());
    info.set("mpix_memhandle_target", std::to_string(handle_.owner).c_str());
    return info;
  }
  const std::shared_ptr<Window>& window() const override { return parent_; }
  std::shared_ptr<const Comm> comm() const override { return comm_; }
  bool is_original() const override { return false; }

 private:
  [[noreturn]] static void unsupported(const char* call) {
    throw Error(MPI_ERR_RMA_SYNC, std::string(call) +
                                      " on a memory-handle window: it allows only put, get, accumulate and "
                                      "flushes; synchronize through the parent window");
  }

  void choose_paths() {
    const int owner = handle_.owner;
    const bool self = owner == parent_->rank();
    if (self) {
      live_ = NodeMemory::get().table() + handle_.slot;
    } else if (parent_->same_node(owner) && parent_->ptrace_peers() != PtracePeers::off) {
      std::string why;
      const auto* table = NodeMemory::get().peer_table(static_cast<pid_t>(handle_.memory.pid), handle_.table_fd, why);
      if (table != nullptr) live_ = table + handle_.slot;
    }
    if (!parent_->same_node(owner)) return;
    DirectPath path = choose_direct_path(handle_.memory, self, parent_->node_path(), parent_->ptrace_peers());
    direct_ = path.target;
    segment_ = std::move(path.segment);
    path_ = path_name(direct_.mode);
  }

  void check_target(int target) const {
    if (target != handle_.owner)
      throw Error(MPI_ERR_RANK, "target_rank = " + std::to_string(target) + " but this memory-handle window's " +
                                    "only target is rank " + std::to_string(handle_.owner));
  }

  // Checks t and turns its displacement into the MPI path's absolute address.
  TransferShape check(Transfer& t) const {
    check_target(t.target);
    if (live_ != nullptr && live_->load(std::memory_order_acquire) != handle_.id)
      throw Error(MPI_ERR_WIN, "the memory handle of this window was released by rank " +
                                   std::to_string(handle_.owner));
    parent_->epoch().check_passive(t.target);
    const TransferShape shape = shape_of(t);
    if (t.disp < 0 || t.disp * disp_unit_ + shape.span > size_)
      throw Error(MPI_ERR_RMA_RANGE, "target_disp = " + std::to_string(t.disp) + " with " +
                                         std::to_string(t.target_count) + " elements reaches past the " +
                                         std::to_string(size_) + "-byte memory-handle window");
    t.disp = static_cast<MPI_Aint>(handle_.memory.address) + t.disp * disp_unit_;
    return shape;
  }

  void move(Window::Direction d, const Transfer& t) {
    Transfer absolute = t;
    const MPI_Aint offset = t.disp * disp_unit_;
    const TransferShape shape = check(absolute);
    parent_->move(d, settings_, absolute, parent_->route_to(direct_, offset, shape, settings_));
  }

  std::shared_ptr<Window> parent_;
  std::shared_ptr<const Comm> comm_;
  WinSettings settings_;
  MemhandleData handle_;
  MPI_Aint size_;
  int disp_unit_;
  const std::atomic<std::uint64_t>* live_ = nullptr;  // the handle's table word, where this process can see it
  std::shared_ptr<PeerMapping> segment_;
  DirectTarget direct_;
  const char* path_ = "mpi";
};

}  // namespace

MemhandleData create_memhandle(Window& parent, void* base, MPI_Aint size) {
  require_dynamic(parent);
  if (size < 0) throw Error(MPI_ERR_SIZE, "size = " + std::to_string(size) + " is negative");
  if (base == nullptr && size > 0) throw Error(MPI_ERR_BUFFER, "base is NULL but size = " + std::to_string(size));
  NodeMemory& memory = NodeMemory::get();
  MemhandleData h{};
  h.magic = MemhandleData::magic_value;
  h.owner = parent.rank();
  h.size = static_cast<std::uint64_t>(size);
  h.table_fd = memory.table_fd();
  h.memory = PeerMemory::describe(base, static_cast<std::size_t>(size), parent.ptrace_peers());
  parent.attach(base, size);
  const HandleSlot slot = memory.open_handle();
  h.slot = slot.index;
  h.id = slot.id;
  h.seal = seal_of(h, parent);
  return h;
}

MemhandleData read_memhandle(const void* memhandle, const Window& parent) {
  require_dynamic(parent);
  if (memhandle == nullptr) throw Error(MPI_ERR_ARG, "memhandle is NULL");
  MemhandleData h;
  std::memcpy(&h, memhandle, sizeof h);
  if (h.magic != MemhandleData::magic_value)
    throw Error(MPI_ERR_ARG, "memhandle does not hold a handle from MPIX_Memhandle_create");
  // The fields used as indices and sizes first, each named; then the seal,
  // which catches any other change.
  if (h.owner < 0 || h.owner >= parent.size())
    bad_field("owner = " + std::to_string(h.owner) + " is not a rank of the parent window (size " +
              std::to_string(parent.size()) + ")");
  if (h.slot >= NodeMemory::table_slots)
    bad_field("slot = " + std::to_string(h.slot) + " is outside the handle table (" +
              std::to_string(NodeMemory::table_slots) + " slots)");
  if (h.id == 0) bad_field("generation = 0 is never live");
  if (h.reserved != 0) bad_field("reserved = " + std::to_string(h.reserved) + " is not 0");
  if (h.size > static_cast<std::uint64_t>(std::numeric_limits<MPI_Aint>::max()))
    bad_field("size = " + std::to_string(h.size) + " is larger than any memory");
  if (h.memory.pid <= 0) bad_field("pid = " + std::to_string(h.memory.pid) + " is not a process");
  if (h.memory.segment_fd >= 0 &&
      (h.memory.segment_offset > h.memory.segment_size || h.size > h.memory.segment_size - h.memory.segment_offset))
    bad_field("size = " + std::to_string(h.size) + " at offset " + std::to_string(h.memory.segment_offset) +
              " reaches past its " + std::to_string(h.memory.segment_size) + "-byte segment");
  if (h.seal != seal_of(h, parent))
    bad_field("its fields do not match their seal (a field was changed after MPIX_Memhandle_create)");
  return h;
}

void release_memhandle(Window& parent, const MemhandleData& h) {
  require_dynamic(parent);
  if (h.owner != parent.rank() || h.memory.pid != getpid())
    throw Error(MPI_ERR_ARG, "memhandle belongs to rank " + std::to_string(h.owner) +
                                 ": only the process that created it releases it");
  if (!NodeMemory::get().close_handle(h.handle()))
    throw Error(MPI_ERR_ARG, "memhandle was released already");
  parent.detach(reinterpret_cast<const void*>(h.memory.address));
}

std::unique_ptr<WindowHandle> make_memhandle_win(std::shared_ptr<Window> parent, std::shared_ptr<const Comm> comm,
                                              WinSettings settings, const MemhandleData& h, MPI_Aint size,
                                              int disp_unit, int target) {
  require_dynamic(*parent);
  parent->epoch().check_alive();
  if (target != h.owner)
    throw Error(MPI_ERR_RANK, "target = " + std::to_string(target) + " but the memory handle belongs to rank " +
                                  std::to_string(h.owner));
  if (size < 0 || static_cast<std::uint64_t>(size) > h.size)
    throw Error(MPI_ERR_SIZE, "size = " + std::to_string(size) + " is outside the " + std::to_string(h.size) +
                                  "-byte memory handle");
  if (disp_unit <= 0) throw Error(MPI_ERR_DISP, "disp_unit = " + std::to_string(disp_unit) + " is not positive");
  if (h.owner == parent->rank() && !NodeMemory::get().handle_live(h.handle()))
    throw Error(MPI_ERR_ARG, "memhandle was released already");
  return std::make_unique<MemhandleWin>(std::move(parent), std::move(comm), settings, h, size, disp_unit);
}

}  // namespace mpix
