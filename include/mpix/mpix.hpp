/**
 * \file mpix.hpp
 * \brief mpix-rma's C++17 interface: header-only, over the C API of <mpix/mpix.h>.
 *
 *   mpix::Comm comm(MPI_COMM_WORLD);  ///< collective, once
 *   std::vector<double> send(...), recv(...);
 *   mpix::Alltoallv exchange(send, sendcounts, sdispls, recv, recvcounts, rdispls, comm);
 *   for (...) { fill(send); exchange.start(); exchange.wait(); use(recv); }
 *                                                     // freed at the end of the scope
 *
 * mpix::Alltoall is the same with one count per block, and
 * mpix::NeighborAlltoallv, on a distributed graph communicator, with one
 * count per edge. Every family of the table (collectives/families.def) has
 * mpix::Persistent<MPIX_<Name>_init>, made from its C init's arguments.
 *
 * Owners (Comm, Info, Persistent and the classes above, Win) are move-only: a moved-from object owns
 * nothing and its destructor frees nothing. Destroying a Comm, an Alltoallv of
 * an RMA algorithm or a created Win is collective, as the C frees are: let
 * them go out of scope on every rank in the same order (or call free()).
 * Destructors never throw; free() reports errors.
 *
 * Errors: a call that fails throws mpix::Error, carrying the MPI error code
 * and the library's message (argument, value, rank). The C API first raises
 * the error on the communicator's error handler, as MPI does, so exceptions
 * need MPI_ERRORS_RETURN on the communicator given to mpix::Comm (set it
 * before constructing the Comm) and on MPI_COMM_SELF for calls without one;
 * under the default MPI_ERRORS_ARE_FATAL the job aborts with the message.
 * Constructing an Alltoallv is collective and fails on every rank or none:
 * an argument error on one rank is thrown on all of them.
 */
#ifndef MPIX_MPIX_HPP
#define MPIX_MPIX_HPP

#include <mpi.h>
#include <mpix/mpix.h>

#include <algorithm>
#include <array>
#include <complex>
#include <cstddef>
#include <limits>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace mpix {
/// The interface's own namespace, so that its inline definitions never share a
/// mangled name with anything inside libmpixrma.
inline namespace cxx_v1 {

/// What every failed call throws: the MPI error code and the library's
/// message (argument, value, rank).
class Error : public std::runtime_error {
 public:
  /// An error with its MPI code and the library's message.
  Error(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  /// The MPI error code the C call returned.
  int code() const noexcept { return code_; }
  /// Its error class (MPI_ERR_COUNT, MPIX_ERR_CONFIG, ...).
  int error_class() const noexcept {
    int cls = code_;
    if (MPI_Error_class(code_, &cls) != MPI_SUCCESS) cls = code_;
    return cls;
  }

 private:
  int code_;
};

/// Throws Error for a failed C call, with the library's message for it.
inline void check(int code) {
  if (code == MPI_SUCCESS) return;
  char text[MPIX_MAX_ERROR_STRING];
  int length = 0;
  if (MPIX_Error_string(code, text, &length) != MPI_SUCCESS) length = 0;
  throw Error(code, length > 0 ? std::string(text, static_cast<std::size_t>(length))
                               : "MPI error code " + std::to_string(code));
}

/// The MPI datatype of T, for the arithmetic and std::complex types.
template <class T>
MPI_Datatype datatype() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, char>) return MPI_CHAR;
  else if constexpr (std::is_same_v<U, signed char>) return MPI_SIGNED_CHAR;
  else if constexpr (std::is_same_v<U, unsigned char>) return MPI_UNSIGNED_CHAR;
  else if constexpr (std::is_same_v<U, wchar_t>) return MPI_WCHAR;
  else if constexpr (std::is_same_v<U, short>) return MPI_SHORT;
  else if constexpr (std::is_same_v<U, unsigned short>) return MPI_UNSIGNED_SHORT;
  else if constexpr (std::is_same_v<U, int>) return MPI_INT;
  else if constexpr (std::is_same_v<U, unsigned>) return MPI_UNSIGNED;
  else if constexpr (std::is_same_v<U, long>) return MPI_LONG;
  else if constexpr (std::is_same_v<U, unsigned long>) return MPI_UNSIGNED_LONG;
  else if constexpr (std::is_same_v<U, long long>) return MPI_LONG_LONG;
  else if constexpr (std::is_same_v<U, unsigned long long>) return MPI_UNSIGNED_LONG_LONG;
  else if constexpr (std::is_same_v<U, float>) return MPI_FLOAT;
  else if constexpr (std::is_same_v<U, double>) return MPI_DOUBLE;
  else if constexpr (std::is_same_v<U, long double>) return MPI_LONG_DOUBLE;
  else if constexpr (std::is_same_v<U, bool>) return MPI_CXX_BOOL;
  else if constexpr (std::is_same_v<U, std::complex<float>>) return MPI_CXX_FLOAT_COMPLEX;
  else if constexpr (std::is_same_v<U, std::complex<double>>) return MPI_CXX_DOUBLE_COMPLEX;
  else if constexpr (std::is_same_v<U, std::complex<long double>>) return MPI_CXX_LONG_DOUBLE_COMPLEX;
  else static_assert(!sizeof(U), "mpix::datatype: no MPI datatype for this type; pass an MPI_Datatype");
}

namespace detail {

/// One owned handle of the C API, freed by Free unless moved away.
template <class Handle, int (*Free)(Handle**)>
class Owner {
 public:
  Owner() noexcept = default;
  explicit Owner(Handle* h) noexcept : h_(h) {}
  Owner(Owner&& other) noexcept : h_(std::exchange(other.h_, nullptr)) {}
  Owner& operator=(Owner&& other) noexcept {
    if (this != &other) {
      reset();
      h_ = std::exchange(other.h_, nullptr);
    }
    return *this;
  }
  Owner(const Owner&) = delete;
  Owner& operator=(const Owner&) = delete;
  ~Owner() { reset(); }

  Handle* get() const noexcept { return h_; }
  explicit operator bool() const noexcept { return h_ != nullptr; }
  /// Frees now, reporting a failure.
  void free() {
    if (h_ != nullptr) check(Free(&h_));
    h_ = nullptr;
  }

 private:
  /// A destructor cannot report: the C call has raised the error on the
  /// communicator's handler already, which is all MPI offers there.
  void reset() noexcept {
    if (h_ != nullptr) (void)Free(&h_);
    h_ = nullptr;
  }
  Handle* h_ = nullptr;
};

template <class T>
using Element = std::remove_cv_t<T>;

}  // namespace detail

/// Hints for Alltoallv and Win (keys as in mpix.h, e.g. "mpix_alltoallv_algorithm").
class Info {
 public:
  /// An empty info object (MPIX_Info_init). Local.
  Info() {
    MPIX_Info* h = nullptr;
    check(MPIX_Info_init(&h));
    owner_ = Owner(h);
  }
  /// Sets a key (MPIX_Info_set); returns *this, for chaining.
  Info& set(const std::string& key, const std::string& value) {
    check(MPIX_Info_set(owner_.get(), key.c_str(), value.c_str()));
    return *this;
  }
  /// The value of a key, or nothing if unset (MPIX_Info_get).
  std::optional<std::string> get(const std::string& key) const {
    std::vector<char> value(MPI_MAX_INFO_VAL + 1);
    int flag = 0;
    check(MPIX_Info_get(owner_.get(), key.c_str(), MPI_MAX_INFO_VAL, value.data(), &flag));
    if (!flag) return std::nullopt;
    return std::string(value.data());
  }
  /// The C handle, for the C API; still owned by this object.
  MPIX_Info* handle() const noexcept { return owner_.get(); }
  /// Frees it now (MPIX_Info_free), reporting errors.
  void free() { owner_.free(); }

 private:
  friend class Win;
  explicit Info(MPIX_Info* adopted) : owner_(adopted) {}
  using Owner = detail::Owner<MPIX_Info, MPIX_Info_free>;
  Owner owner_;
};

/// This rank's place in the node layout the library uses.
struct NodeLayout {
  int node;  ///< which node this rank is on
  int node_rank;  ///< its rank on the node
  int node_size;  ///< ranks on its node
  int num_nodes;  ///< nodes in the communicator
};

/// A communicator prepared for mpix-rma: a private duplicate of comm, split
/// into nodes. Collective over comm.
class Comm {
 public:
  /// MPIX_Comm_init over comm. Collective over comm.
  explicit Comm(MPI_Comm comm = MPI_COMM_WORLD) {
    MPIX_Comm* h = nullptr;
    check(MPIX_Comm_init(&h, comm));
    owner_ = Owner(h);
  }
  /// The library's duplicate of the communicator (same ranks and error handler).
  MPI_Comm mpi_comm() const {
    MPI_Comm comm = MPI_COMM_NULL;
    check(MPIX_Comm_get_comm(owner_.get(), &comm));
    return comm;
  }
  /// This rank in the communicator.
  int rank() const {
    int r = 0;
    check(MPI_Comm_rank(mpi_comm(), &r));
    return r;
  }
  /// The number of ranks.
  int size() const {
    int n = 0;
    check(MPI_Comm_size(mpi_comm(), &n));
    return n;
  }
  /// This rank's place in the node layout (MPIX_Comm_get_node).
  NodeLayout node_layout() const {
    NodeLayout l{};
    check(MPIX_Comm_get_node(owner_.get(), &l.node, &l.node_rank, &l.node_size, &l.num_nodes));
    return l;
  }
  /// The C handle, for the C API; still owned by this object.
  MPIX_Comm* handle() const noexcept { return owner_.get(); }
  /// Frees it now (MPIX_Comm_free), reporting errors. Collective.
  void free() { owner_.free(); }

 private:
  using Owner = detail::Owner<MPIX_Comm, MPIX_Comm_free>;
  Owner owner_;
};

/// One registered algorithm of a collective family (MPIX_<Family>_algorithm).
struct AlgorithmInfo {
  std::string name;         ///< its registry name
  std::string description;  ///< one line
  int capabilities;         ///< MPIX_ALGORITHM_* bits
  /// Whether it has every capability in bits.
  bool has(int bits) const { return (capabilities & bits) == bits; }
};

namespace detail {

/// A family's registered algorithms through its C listing, in mpix_info's
/// order. Local.
inline std::vector<AlgorithmInfo> listed_algorithms(int (*count_of)(int*),
                                                    int (*describe)(int, const char**, const char**, int*)) {
  int count = 0;
  check(count_of(&count));
  std::vector<AlgorithmInfo> rows;
  for (int i = 0; i < count; ++i) {
    const char* name = nullptr;
    const char* description = nullptr;
    int capabilities = 0;
    check(describe(i, &name, &description, &capabilities));
    rows.push_back({name, description, capabilities});
  }
  return rows;
}

/// Per condition, the lowest rank where it holds, or -1: agreed by every
/// rank of comm in one reduction.
inline std::array<int, 2> first_ranks_where(std::array<bool, 2> failed, MPI_Comm comm, int rank_here) {
  constexpr int none = std::numeric_limits<int>::max();
  std::array<int, 2> rank = {failed[0] ? rank_here : none, failed[1] ? rank_here : none};
  check(MPI_Allreduce(MPI_IN_PLACE, rank.data(), 2, MPI_INT, MPI_MIN, comm));
  for (int& r : rank) r = r == none ? -1 : r;
  return rank;
}

/// Elements a buffer needs for these blocks (0 for a rank with none).
inline std::size_t extent_needed(const std::vector<int>& counts, const std::vector<int>& displs) {
  std::size_t end = 0;
  for (std::size_t i = 0; i < counts.size() && i < displs.size(); ++i)
    if (counts[i] > 0 && displs[i] >= 0)
      end = std::max(end, static_cast<std::size_t>(displs[i]) + static_cast<std::size_t>(counts[i]));
  return end;
}

/// A vector exchange's arrays and buffer vectors, checked on every rank at
/// once (one reduction): arrays shorter than their entries, and buffers too
/// small for the blocks (judged from the entries there are), on the lowest
/// rank where either holds, thrown by every rank. who: the class, for the
/// message; entries: what the arrays need.
inline void check_vector_arguments(const char* who, MPI_Comm comm, int rank, std::size_t send_entries,
                                   std::size_t recv_entries, const std::vector<int>& sendcounts,
                                   const std::vector<int>& sdispls, std::size_t send_size,
                                   const std::vector<int>& recvcounts, const std::vector<int>& rdispls,
                                   std::size_t recv_size, const char* entries) {
  const bool short_here = sendcounts.size() < send_entries || sdispls.size() < send_entries ||
                          recvcounts.size() < recv_entries || rdispls.size() < recv_entries;
  const bool fits = extent_needed(sendcounts, sdispls) <= send_size && extent_needed(recvcounts, rdispls) <= recv_size;
  const auto [short_arrays, small_buffers] = first_ranks_where({short_here, !fits}, comm, rank);
  const auto fail = [&](int where, const std::string& what) {
    throw Error(MPI_ERR_ARG, std::string(who) + " (rank " + std::to_string(rank) + "): " + what + " on rank " +
                                 std::to_string(where));
  };
  if (short_arrays >= 0) fail(short_arrays, entries);
  if (small_buffers >= 0) fail(small_buffers, "a buffer vector is smaller than its counts and displacements reach");
}

}  // namespace detail

/// The registered Alltoallv algorithms, in mpix_info's order. Local.
inline std::vector<AlgorithmInfo> alltoallv_algorithms() {
  return detail::listed_algorithms(MPIX_Alltoallv_algorithm_count, MPIX_Alltoallv_algorithm);
}
/// The registered Alltoall algorithms. Local.
inline std::vector<AlgorithmInfo> alltoall_algorithms() {
  return detail::listed_algorithms(MPIX_Alltoall_algorithm_count, MPIX_Alltoall_algorithm);
}
/// The registered neighbourhood Alltoallv algorithms. Local.
inline std::vector<AlgorithmInfo> neighbor_alltoallv_algorithms() {
  return detail::listed_algorithms(MPIX_Neighbor_alltoallv_algorithm_count, MPIX_Neighbor_alltoallv_algorithm);
}

/// A persistent request of any family: what every family's class does with
/// it once made.
class Request {
 public:
  /// Starts the exchange (MPIX_Start).
  void start() { check(MPIX_Start(owner_.get())); }
  /// Waits until it completes (MPIX_Wait).
  void wait() { check(MPIX_Wait(owner_.get(), MPI_STATUS_IGNORE)); }
  /// Whether the exchange is complete (progresses it if not).
  bool test() {
    int flag = 0;
    check(MPIX_Test(owner_.get(), &flag, MPI_STATUS_IGNORE));
    return flag != 0;
  }
  /// The registry name of the algorithm running the request.
  std::string algorithm() const {
    char name[MPIX_MAX_OBJECT_NAME];
    int length = 0;
    check(MPIX_Request_get_algorithm(owner_.get(), name, &length));
    return std::string(name, static_cast<std::size_t>(length));
  }
  /// The C handle, for the C API; still owned by this object.
  MPIX_Request* handle() const noexcept { return owner_.get(); }
  /// Frees it now (MPIX_Request_free), reporting errors. Collective for the RMA
  /// algorithms; the request must be inactive.
  void free() { owner_.free(); }

 protected:
  /// @cond internal
  Request() = default;
  void adopt(MPIX_Request* made) { owner_ = Owner(made); }
  /// @endcond

 private:
  using Owner = detail::Owner<MPIX_Request, MPIX_Request_free>;
  Owner owner_;
};

/// @cond internal
namespace detail {
/// The parameters of a family's C init before (xcomm, info, request), as a
/// std::tuple of their types.
template <class Init>
struct InitParameters;
template <class... P>
struct InitParameters<int (*)(P...)> {
  static constexpr std::size_t count = sizeof...(P) - 3;
  static_assert(std::is_same_v<std::tuple_element_t<count, std::tuple<P...>>, MPIX_Comm*> &&
                    std::is_same_v<std::tuple_element_t<count + 1, std::tuple<P...>>, MPIX_Info*> &&
                    std::is_same_v<std::tuple_element_t<count + 2, std::tuple<P...>>, MPIX_Request**>,
                "a family's init ends with (MPIX_Comm*, MPIX_Info*, MPIX_Request**)");
  template <std::size_t... I>
  static std::tuple<std::tuple_element_t<I, std::tuple<P...>>...> first(std::index_sequence<I...>);
  using type = decltype(first(std::make_index_sequence<count>()));
};
}  // namespace detail
/// @endcond

/// A persistent request of any family, made by the family's C init from that
/// init's own arguments, then comm and info: for example
/// mpix::Persistent<MPIX_Alltoall_init>(sendbuf, 4, MPI_INT, recvbuf, 4,
/// MPI_INT, comm). Every row of the families table has one, with no code of
/// its own; Alltoallv, Alltoall and NeighborAlltoallv add typed constructors.
/// Buffers stay the caller's and must outlive the object.
template <auto Init, class Parameters = typename detail::InitParameters<decltype(Init)>::type>
class Persistent;

/// @cond internal
template <auto Init, class... P>
class Persistent<Init, std::tuple<P...>> : public Request {
 public:
  /// The C init's arguments as they are (MPI_IN_PLACE allowed where the C
  /// call allows it). Collective.
  Persistent(P... arguments, const Comm& comm, const Info* info = nullptr) { init(arguments..., comm, info); }

 protected:
  Persistent() = default;
  void init(P... arguments, const Comm& comm, const Info* info) {
    MPIX_Request* h = nullptr;
    check(Init(arguments..., comm.handle(), info ? info->handle() : nullptr, &h));
    adopt(h);
  }
};
/// @endcond

/// A persistent Alltoallv (MPIX_Alltoallv_init): buffers stay the caller's and
/// must outlive the object; the count and displacement arrays are copied.
class Alltoallv : public Persistent<MPIX_Alltoallv_init> {
 public:
  /// The C API's arguments as they are (MPI_IN_PLACE allowed as sendbuf).
  using Persistent::Persistent;
  /// Typed pointers: the datatype is deduced from T.
  template <class T>
  Alltoallv(const T* sendbuf, const std::vector<int>& sendcounts, const std::vector<int>& sdispls, T* recvbuf,
            const std::vector<int>& recvcounts, const std::vector<int>& rdispls, const Comm& comm,
            const Info* info = nullptr) {
    check_arrays(comm, sendcounts, sdispls, unknown_size, recvcounts, rdispls, unknown_size);
    init(sendbuf, sendcounts.data(), sdispls.data(), datatype<T>(), recvbuf, recvcounts.data(), rdispls.data(),
         datatype<T>(), comm, info);
  }
  /// Vectors: also checked, on every rank at once, to hold every block the
  /// counts and displacements name.
  template <class T, class SendAlloc, class RecvAlloc>
  Alltoallv(const std::vector<T, SendAlloc>& send, const std::vector<int>& sendcounts,
            const std::vector<int>& sdispls, std::vector<T, RecvAlloc>& recv, const std::vector<int>& recvcounts,
            const std::vector<int>& rdispls, const Comm& comm, const Info* info = nullptr) {
    check_arrays(comm, sendcounts, sdispls, send.size(), recvcounts, rdispls, recv.size());
    init(send.data(), sendcounts.data(), sdispls.data(), datatype<T>(), recv.data(), recvcounts.data(),
         rdispls.data(), datatype<T>(), comm, info);
  }

 private:
  /// A buffer behind a pointer, whose size is not known.
  static constexpr std::size_t unknown_size = std::numeric_limits<std::size_t>::max();
  static void check_arrays(const Comm& comm, const std::vector<int>& sendcounts, const std::vector<int>& sdispls,
                           std::size_t send_size, const std::vector<int>& recvcounts, const std::vector<int>& rdispls,
                           std::size_t recv_size) {
    const auto n = static_cast<std::size_t>(comm.size());
    detail::check_vector_arguments("mpix::Alltoallv", comm.mpi_comm(), comm.rank(), n, n, sendcounts, sdispls,
                                   send_size, recvcounts, rdispls, recv_size,
                                   "sendcounts, sdispls, recvcounts and rdispls need one entry per rank");
  }
};

/// A persistent Alltoall (MPIX_Alltoall_init): block r of each buffer goes
/// to, or comes from, rank r. Buffers stay the caller's and must outlive the
/// object.
class Alltoall : public Persistent<MPIX_Alltoall_init> {
 public:
  /// The C API's arguments as they are (MPI_IN_PLACE allowed as sendbuf).
  using Persistent::Persistent;
  /// Vectors, in the C call's order without the datatypes (deduced from T):
  /// blocks of sendcount and recvcount elements; checked, on every rank at
  /// once, to hold a block per rank.
  template <class T, class SendAlloc, class RecvAlloc>
  Alltoall(const std::vector<T, SendAlloc>& send, int sendcount, std::vector<T, RecvAlloc>& recv, int recvcount,
           const Comm& comm, const Info* info = nullptr) {
    const auto needed = [&](int count) {
      return static_cast<std::size_t>(comm.size()) * static_cast<std::size_t>(std::max(count, 0));
    };
    const bool small_here = send.size() < needed(sendcount) || recv.size() < needed(recvcount);
    const int small = detail::first_ranks_where({small_here, false}, comm.mpi_comm(), comm.rank())[0];
    if (small >= 0)
      throw Error(MPI_ERR_ARG, "mpix::Alltoall (rank " + std::to_string(comm.rank()) +
                                   "): a buffer vector holds fewer than its count of elements per rank on rank " +
                                   std::to_string(small));
    init(send.data(), sendcount, datatype<T>(), recv.data(), recvcount, datatype<T>(), comm, info);
  }
};

/// A persistent neighbourhood Alltoallv (MPIX_Neighbor_alltoallv_init) over
/// the distributed graph of comm's communicator: one count and displacement
/// per edge, in MPI_Dist_graph_neighbors' order (sources receive,
/// destinations send). Buffers stay the caller's and must outlive the
/// object.
class NeighborAlltoallv : public Persistent<MPIX_Neighbor_alltoallv_init> {
 public:
  /// The C API's arguments as they are.
  using Persistent::Persistent;
  /// Vectors: checked, on every rank at once, to hold one entry per edge and
  /// every block the counts and displacements name.
  template <class T, class SendAlloc, class RecvAlloc>
  NeighborAlltoallv(const std::vector<T, SendAlloc>& send, const std::vector<int>& sendcounts,
                    const std::vector<int>& sdispls, std::vector<T, RecvAlloc>& recv,
                    const std::vector<int>& recvcounts, const std::vector<int>& rdispls, const Comm& comm,
                    const Info* info = nullptr) {
    int indegree = 0, outdegree = 0, weighted = 0;
    int topology = MPI_UNDEFINED;
    check(MPI_Topo_test(comm.mpi_comm(), &topology));
    if (topology == MPI_DIST_GRAPH)  // otherwise the C call reports it on every rank
      check(MPI_Dist_graph_neighbors_count(comm.mpi_comm(), &indegree, &outdegree, &weighted));
    detail::check_vector_arguments("mpix::NeighborAlltoallv", comm.mpi_comm(), comm.rank(),
                                   static_cast<std::size_t>(outdegree), static_cast<std::size_t>(indegree),
                                   sendcounts, sdispls, send.size(), recvcounts, rdispls, recv.size(),
                                   "sendcounts and sdispls need one entry per destination edge, recvcounts and "
                                   "rdispls one per source edge");
    init(send.data(), sendcounts.data(), sdispls.data(), datatype<T>(), recv.data(), recvcounts.data(),
         rdispls.data(), datatype<T>(), comm, info);
  }
};

/// Memory from MPIX_Alloc_mem, for std::vector: on a node, send blocks in such
/// memory can be copied once by their receiver instead of staged.
template <class T>
struct allocator {
  using value_type = T;  ///< the element type
  allocator() noexcept = default;
  /// Allocators of every type share one pool: MPIX_Alloc_mem.
  template <class U>
  allocator(const allocator<U>&) noexcept {}
  /// n elements of MPIX_Alloc_mem memory; throws std::bad_alloc or mpix::Error.
  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(std::numeric_limits<MPI_Aint>::max()) / sizeof(T)) throw std::bad_alloc();
    T* p = nullptr;
    check(MPIX_Alloc_mem(static_cast<MPI_Aint>(n * sizeof(T)), nullptr, &p));
    return p;
  }
  /// Gives the memory back (MPIX_Free_mem).
  void deallocate(T* p, std::size_t) noexcept { (void)MPIX_Free_mem(p); }
  /// Any two allocators can free each other's memory.
  template <class U>
  bool operator==(const allocator<U>&) const noexcept { return true; }
  /// Never: any two can free each other's memory.
  template <class U>
  bool operator!=(const allocator<U>&) const noexcept { return false; }
};

/// An RMA window over an mpix::Comm (MPIX_Win_create / MPIX_Win_allocate).
class Win {
 public:
  /// Exposes base[0, count) of T. Collective.
  template <class T>
  static Win create(T* base, MPI_Aint count, const Comm& comm, const Info* info = nullptr) {
    MPIX_Win* h = nullptr;
    check(MPIX_Win_create(base, count * static_cast<MPI_Aint>(sizeof(T)), static_cast<int>(sizeof(T)),
                          info ? info->handle() : nullptr, comm.handle(), &h));
    return Win(h, base);
  }
  /// Allocates count elements of T that the window exposes; base<T>() gives them. Collective.
  template <class T>
  static Win allocate(MPI_Aint count, const Comm& comm, const Info* info = nullptr) {
    MPIX_Win* h = nullptr;
    T* base = nullptr;
    check(MPIX_Win_allocate(count * static_cast<MPI_Aint>(sizeof(T)), static_cast<int>(sizeof(T)),
                            info ? info->handle() : nullptr, comm.handle(), &base, &h));
    return Win(h, base);
  }

  /// Takes over other's window; other owns nothing after.
  Win(Win&& other) noexcept : owner_(std::move(other.owner_)), base_(std::exchange(other.base_, nullptr)) {}
  /// Frees this window (if any) and takes over other's.
  Win& operator=(Win&& other) noexcept {
    owner_ = std::move(other.owner_);
    base_ = std::exchange(other.base_, nullptr);
    return *this;
  }

  /// The window's memory on this rank, as T.
  template <class T>
  T* base() const noexcept {
    return static_cast<T*>(base_);
  }
  /// Puts count elements of T at target_disp (in elements of T) at target_rank (MPIX_Put).
  template <class T>
  void put(const T* origin, int count, int target_rank, MPI_Aint target_disp) {
    check(MPIX_Put(origin, count, datatype<T>(), target_rank, target_disp, count, datatype<T>(), owner_.get()));
  }
  /// Gets count elements of T from target_disp at target_rank (MPIX_Get).
  template <class T>
  void get(T* origin, int count, int target_rank, MPI_Aint target_disp) {
    check(MPIX_Get(origin, count, datatype<T>(), target_rank, target_disp, count, datatype<T>(), owner_.get()));
  }
  /// MPIX_Win_fence.
  void fence(int assert_flags = 0) { check(MPIX_Win_fence(assert_flags, owner_.get())); }
  /// MPIX_Win_lock.
  void lock(int lock_type, int rank, int assert_flags = 0) {
    check(MPIX_Win_lock(lock_type, rank, assert_flags, owner_.get()));
  }
  /// MPIX_Win_unlock.
  void unlock(int rank) { check(MPIX_Win_unlock(rank, owner_.get())); }
  /// MPIX_Win_lock_all.
  void lock_all(int assert_flags = 0) { check(MPIX_Win_lock_all(assert_flags, owner_.get())); }
  /// MPIX_Win_unlock_all.
  void unlock_all() { check(MPIX_Win_unlock_all(owner_.get())); }
  /// MPIX_Win_flush.
  void flush(int rank) { check(MPIX_Win_flush(rank, owner_.get())); }
  /// MPIX_Win_flush_all.
  void flush_all() { check(MPIX_Win_flush_all(owner_.get())); }
  /// MPIX_Win_sync.
  void sync() { check(MPIX_Win_sync(owner_.get())); }
  /// The effective hints (mpi_win_scope, mpi_win_order, mpix_paths).
  Info info() const {
    MPIX_Info* h = nullptr;
    check(MPIX_Win_get_info(owner_.get(), &h));
    return Info(h);
  }
  /// The C handle, for the C API; still owned by this object.
  MPIX_Win* handle() const noexcept { return owner_.get(); }
  /// Frees it now (MPIX_Win_free), reporting errors. Collective for a created window.
  void free() {
    owner_.free();
    base_ = nullptr;
  }

 private:
  using Owner = detail::Owner<MPIX_Win, MPIX_Win_free>;
  Win(MPIX_Win* h, void* base) : owner_(h), base_(base) {}
  Owner owner_;
  void* base_ = nullptr;
};

}  // namespace cxx_v1
}  // namespace mpix

#endif /* MPIX_MPIX_HPP */
