#include "node/descriptor_passing.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>

#include "src/error.hpp"

namespace mpix {

namespace {

// A bound socket's address and owner as they travel in the allgather;
// length 0: none.
struct Endpoint {
  int length = 0;
  char path[sizeof(sockaddr_un::sun_path)] = {};
  pid_t pid = 0;
  uid_t uid = 0;
};

// A datagram socket bound to a fresh abstract address (autobind) that
// receives its senders' credentials; empty, with why and err (the errno),
// where that fails.
UniqueFd bound_socket(Endpoint& endpoint, std::string& why, int& err) {
  UniqueFd s(socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  const char* failed = nullptr;
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  socklen_t length = sizeof a;
  const int on = 1;
  if (s.get() < 0)
    failed = "socket(AF_UNIX)";
  else if (setsockopt(s.get(), SOL_SOCKET, SO_PASSCRED, &on, sizeof on) != 0)
    failed = "setsockopt(SO_PASSCRED)";
  // Only the family: the kernel picks a unique abstract name.
  else if (bind(s.get(), reinterpret_cast<sockaddr*>(&a), sizeof(sa_family_t)) != 0)
    failed = "bind(AF_UNIX autobind)";
  else if (getsockname(s.get(), reinterpret_cast<sockaddr*>(&a), &length) != 0)
    failed = "getsockname";
  if (failed != nullptr) {
    err = errno;
    why = system_error(failed, err);
    return UniqueFd();
  }
  endpoint.length = static_cast<int>(length);
  std::memcpy(endpoint.path, a.sun_path, length - offsetof(sockaddr_un, sun_path));
  endpoint.pid = getpid();
  endpoint.uid = getuid();
  return s;
}

// Sends fd, tagged with the sender's node rank, to the socket at to. Never
// blocks: a queue that another process has filled is a failure with its
// reason, not a wait.
bool send_descriptor(int s, const Endpoint& to, int to_rank, int fd, int sender, std::string& why) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::memcpy(a.sun_path, to.path, static_cast<std::size_t>(to.length) - offsetof(sockaddr_un, sun_path));
  iovec payload{&sender, sizeof sender};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr m{};
  m.msg_name = &a;
  m.msg_namelen = static_cast<socklen_t>(to.length);
  m.msg_iov = &payload;
  m.msg_iovlen = 1;
  m.msg_control = control;
  m.msg_controllen = sizeof control;
  cmsghdr* c = CMSG_FIRSTHDR(&m);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
  ssize_t n;
  do n = sendmsg(s, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
  while (n < 0 && errno == EINTR);
  if (n == static_cast<ssize_t>(sizeof sender)) return true;
  if (errno == EAGAIN || errno == EWOULDBLOCK)
    why = "the descriptor queue of node rank " + std::to_string(to_rank) +
          " is full (another process may be flooding it)";
  else
    why = system_error("sendmsg(SCM_RIGHTS)", errno);
  return false;
}

// Rounds between barriers: fewer than net.unix.max_dgram_qlen's default.
constexpr int rounds_per_barrier = 8;

// One datagram as received, before it is trusted.
struct Datagram {
  int claimed = -1;            // the node rank its payload names
  UniqueFd fd;                 // its descriptor, if it carried exactly one
  bool extra_descriptors = false;
  bool truncated = false;      // MSG_CTRUNC: descriptors the kernel could not install
  bool has_credentials = false;
  ucred credentials{};
  sockaddr_un from{};
  socklen_t from_length = 0;
  bool well_formed = false;    // a payload of exactly one int
};

// Receives one queued datagram without waiting; false when none is queued
// (or on an error, with why).
bool receive_datagram(int s, Datagram& d, std::string& why) {
  iovec payload{&d.claimed, sizeof d.claimed};
  // Room for one descriptor and the credentials; a datagram with more
  // descriptors is not one of ours (the kernel closes what does not fit).
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(ucred))] = {};
  msghdr m{};
  m.msg_name = &d.from;
  m.msg_namelen = sizeof d.from;
  m.msg_iov = &payload;
  m.msg_iovlen = 1;
  m.msg_control = control;
  m.msg_controllen = sizeof control;
  ssize_t n;
  do n = recvmsg(s, &m, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
  while (n < 0 && errno == EINTR);
  if (n < 0) {
    if (errno != EAGAIN && errno != EWOULDBLOCK) why = system_error("recvmsg(SCM_RIGHTS)", errno);
    return false;
  }
  d.well_formed = n == static_cast<ssize_t>(sizeof d.claimed) && !(m.msg_flags & MSG_TRUNC);
  d.from_length = m.msg_namelen;
  d.truncated = (m.msg_flags & MSG_CTRUNC) != 0;
  for (cmsghdr* c = CMSG_FIRSTHDR(&m); c != nullptr; c = CMSG_NXTHDR(&m, c)) {
    if (c->cmsg_level != SOL_SOCKET) continue;
    if (c->cmsg_type == SCM_RIGHTS) {
      // Every descriptor received is owned (and so closed) here.
      const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (std::size_t i = 0; i < count; ++i) {
        int received = -1;
        std::memcpy(&received, CMSG_DATA(c) + i * sizeof(int), sizeof received);
        if (d.fd.get() < 0 && i == 0)
          d.fd.reset(received);
        else {
          UniqueFd extra(received);
          d.extra_descriptors = true;
        }
      }
    } else if (c->cmsg_type == SCM_CREDENTIALS && c->cmsg_len >= CMSG_LEN(sizeof(ucred))) {
      std::memcpy(&d.credentials, CMSG_DATA(c), sizeof d.credentials);
      d.has_credentials = true;
    }
  }
  return true;
}

// Whether d was sent by the node rank it names, as the kernel saw it: the
// claimed rank's pid and uid in the credentials, its address as the source.
bool authentic(const Datagram& d, const std::vector<Endpoint>& all) {
  if (!d.well_formed || d.extra_descriptors || !d.has_credentials) return false;
  if (d.claimed < 0 || d.claimed >= static_cast<int>(all.size())) return false;
  const Endpoint& e = all[static_cast<std::size_t>(d.claimed)];
  const std::size_t path_bytes = static_cast<std::size_t>(e.length) - offsetof(sockaddr_un, sun_path);
  return e.length > 0 && d.credentials.pid == e.pid && d.credentials.uid == e.uid &&
         static_cast<int>(d.from_length) == e.length && std::memcmp(d.from.sun_path, e.path, path_bytes) == 0;
}

std::string sender_of(const Datagram& d) {
  if (!d.has_credentials) return "a sender without credentials";
  return "pid " + std::to_string(d.credentials.pid) + ", uid " + std::to_string(d.credentials.uid);
}

}  // namespace

void UniqueFd::reset(int fd) {
  if (fd_ >= 0) close(fd_);
  fd_ = fd;
}

SharedDescriptors share_descriptor(MPI_Comm node, int mine) {
  int me = 0, n = 1;
  mpi_check(MPI_Comm_rank(node, &me), "MPI_Comm_rank");
  mpi_check(MPI_Comm_size(node, &n), "MPI_Comm_size");
  SharedDescriptors result;
  result.of.resize(static_cast<std::size_t>(n));
  if (n == 1) return result;

  Endpoint endpoint;
  std::string why;
  int err = 0;
  const UniqueFd s = bound_socket(endpoint, why, err);
  std::vector<Endpoint> all(static_cast<std::size_t>(n));
  mpi_check(MPI_Allgather(&endpoint, sizeof endpoint, MPI_BYTE, all.data(), sizeof endpoint, MPI_BYTE, node),
            "MPI_Allgather");
  std::vector<bool> arrived(static_cast<std::size_t>(n), false);
  for (int r = 1; r < n; ++r) {
    const int to = (me + r) % n, from = (me - r + n) % n;
    int sent = 0, coming = 0;
    if (s.get() >= 0 && mine >= 0 && all[static_cast<std::size_t>(to)].length > 0)
      sent = send_descriptor(s.get(), all[static_cast<std::size_t>(to)], to, mine, me, why) ? 1 : 0;
    mpi_check(MPI_Sendrecv(&sent, 1, MPI_INT, to, 0, &coming, 1, MPI_INT, from, 0, node, MPI_STATUS_IGNORE),
              "MPI_Sendrecv");
    // Datagrams of later rounds that came first are kept in result.of; the
    // one from `from` is queued already, behind at most a queue's worth of
    // forged ones.
    while (coming && !arrived[static_cast<std::size_t>(from)]) {
      Datagram d;
      if (!receive_datagram(s.get(), d, why)) {
        if (why.empty()) why = "no authentic descriptor arrived from node rank " + std::to_string(from);
        break;
      }
      if (!authentic(d, all) || arrived[static_cast<std::size_t>(d.claimed)]) {
        ++result.forged;
        result.forged_from = sender_of(d);
        continue;
      }
      arrived[static_cast<std::size_t>(d.claimed)] = true;
      if (d.truncated || d.fd.get() < 0) {
        // The kernel drops a descriptor it cannot install (out of descriptors).
        if (why.empty()) why = system_error("recvmsg(SCM_RIGHTS) from node rank " + std::to_string(d.claimed), EMFILE);
        continue;
      }
      result.of[static_cast<std::size_t>(d.claimed)] = std::move(d.fd);
    }
    if (!coming && why.empty()) why = "node rank " + std::to_string(from) + " could not pass its descriptor";
    if (r % rounds_per_barrier == 0) mpi_check(MPI_Barrier(node), "MPI_Barrier");
  }
  result.why = why;
  return result;
}

std::string descriptor_passing_unavailable() {
  // Kept for the process: a passing lack of descriptors or memory is no
  // verdict (share_descriptor reports it when it happens).
  static const std::string reason = [] {
    Endpoint endpoint;
    std::string why;
    int err = 0;
    const UniqueFd s = bound_socket(endpoint, why, err);
    return is_resource_error(err) ? std::string() : why;
  }();
  return reason;
}

}  // namespace mpix
