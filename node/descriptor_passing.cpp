#include "node/descriptor_passing.hpp"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>

#include "src/error.hpp"

namespace mpix {

namespace {

// A bound socket's address and owner as they travel in the collectives;
// length 0: none.
struct Endpoint {
  int length = 0;
  char path[sizeof(sockaddr_un::sun_path)] = {};
  pid_t pid = 0;
  uid_t uid = 0;
};

// The most descriptors one datagram can carry (the kernel's SCM_MAX_FD):
// room for all of them, so the kernel never closes one for us.
constexpr std::size_t most_descriptors = 253;

// Binds s to a fresh abstract address (autobind) and describes it in
// endpoint; the name of the failed call otherwise.
const char* bind_fresh_address(int s, Endpoint& endpoint) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  socklen_t length = sizeof a;
  // Only the family: the kernel picks a unique abstract name.
  if (bind(s, reinterpret_cast<sockaddr*>(&a), sizeof(sa_family_t)) != 0) return "bind(AF_UNIX autobind)";
  if (getsockname(s, reinterpret_cast<sockaddr*>(&a), &length) != 0) return "getsockname";
  endpoint.length = static_cast<int>(length);
  std::memcpy(endpoint.path, a.sun_path, length - offsetof(sockaddr_un, sun_path));
  endpoint.pid = getpid();
  endpoint.uid = getuid();
  return nullptr;
}

sockaddr_un address_of(const Endpoint& e) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::memcpy(a.sun_path, e.path, static_cast<std::size_t>(e.length) - offsetof(sockaddr_un, sun_path));
  return a;
}

// A datagram socket that only sends: its reading is shut down before it is
// named, so the kernel refuses every datagram addressed to it. Empty, with
// why and err (the errno), where that fails.
UniqueFd sending_socket(Endpoint& endpoint, std::string& why, int& err) {
  UniqueFd s(socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  const char* failed = nullptr;
  if (s.get() < 0)
    failed = "socket(AF_UNIX)";
  else if (shutdown(s.get(), SHUT_RD) != 0)
    failed = "shutdown(SHUT_RD)";
  else
    failed = bind_fresh_address(s.get(), endpoint);
  if (failed == nullptr) return s;
  err = errno;
  why = system_error(failed, err);
  endpoint.length = 0;
  return UniqueFd();
}

// A datagram socket that receives from peer alone: connected to the peer's
// sending address before it is named, so the kernel refuses every other
// sender; it receives its sender's credentials. Empty, with why, where that
// fails.
UniqueFd receiving_socket(const Endpoint& peer, Endpoint& endpoint, std::string& why) {
  UniqueFd s(socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  const sockaddr_un to = address_of(peer);
  const int on = 1;
  const char* failed = nullptr;
  if (s.get() < 0)
    failed = "socket(AF_UNIX)";
  else if (connect(s.get(), reinterpret_cast<const sockaddr*>(&to), static_cast<socklen_t>(peer.length)) != 0)
    failed = "connect(AF_UNIX)";
  else if (setsockopt(s.get(), SOL_SOCKET, SO_PASSCRED, &on, sizeof on) != 0)
    failed = "setsockopt(SO_PASSCRED)";
  else
    failed = bind_fresh_address(s.get(), endpoint);
  if (failed == nullptr) return s;
  why = system_error(failed, errno);
  endpoint.length = 0;
  return UniqueFd();
}

// Sends fd, tagged with the sender's node rank, from s to the socket at to.
// Never blocks: a full queue is a failure with its reason, not a wait.
bool send_descriptor(int s, const Endpoint& to, int to_rank, int fd, int sender, std::string& why) {
  sockaddr_un a = address_of(to);
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
    why = "the descriptor queue of node rank " + std::to_string(to_rank) + " is full";
  else
    why = system_error("sendmsg(SCM_RIGHTS) to node rank " + std::to_string(to_rank), errno);
  return false;
}

// Closes a descriptor that did not pass the checks. A socket's connection
// is aborted first (SO_LINGER 0: a TCP socket is reset, not drained), so
// its close cannot wait on whoever is at the other end.
void discard(UniqueFd fd) {
  struct stat st{};
  if (fstat(fd.get(), &st) == 0 && S_ISSOCK(st.st_mode)) {
    const linger abort_now{1, 0};
    setsockopt(fd.get(), SOL_SOCKET, SO_LINGER, &abort_now, sizeof abort_now);
  }
}

// One datagram as received, before it is trusted. Descriptors not taken
// from it are discarded with it.
struct Datagram {
  int claimed = -1;  // the node rank its payload names
  std::vector<UniqueFd> fds;
  bool truncated = false;  // MSG_CTRUNC: descriptors the kernel could not install
  bool has_credentials = false;
  ucred credentials{};
  sockaddr_un from{};
  socklen_t from_length = 0;
  bool well_formed = false;  // a payload of exactly one int
  ~Datagram() {
    for (UniqueFd& fd : fds)
      if (fd.get() >= 0) discard(std::move(fd));
  }
};

// Receives one queued datagram without waiting; false when none is queued
// (or on an error, with why).
bool receive_datagram(int s, Datagram& d, std::string& why) {
  iovec payload{&d.claimed, sizeof d.claimed};
  alignas(cmsghdr) char control[CMSG_SPACE(most_descriptors * sizeof(int)) + CMSG_SPACE(sizeof(ucred))] = {};
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
    why = system_error("recvmsg(SCM_RIGHTS)", errno);
    return false;
  }
  d.well_formed = n == static_cast<ssize_t>(sizeof d.claimed) && !(m.msg_flags & MSG_TRUNC);
  d.from_length = m.msg_namelen;
  d.truncated = (m.msg_flags & MSG_CTRUNC) != 0;
  for (cmsghdr* c = CMSG_FIRSTHDR(&m); c != nullptr; c = CMSG_NXTHDR(&m, c)) {
    if (c->cmsg_level != SOL_SOCKET) continue;
    if (c->cmsg_type == SCM_RIGHTS) {
      const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (std::size_t i = 0; i < count; ++i) {
        int received = -1;
        std::memcpy(&received, CMSG_DATA(c) + i * sizeof(int), sizeof received);
        d.fds.emplace_back(received);
      }
    } else if (c->cmsg_type == SCM_CREDENTIALS && c->cmsg_len >= CMSG_LEN(sizeof(ucred))) {
      std::memcpy(&d.credentials, CMSG_DATA(c), sizeof d.credentials);
      d.has_credentials = true;
    }
  }
  return true;
}

// Whether d was sent by node rank peer, as the kernel saw it: its pid and
// uid in the credentials, its sending address as the source, its rank named.
bool authentic(const Datagram& d, int peer, const Endpoint& e) {
  if (!d.well_formed || d.fds.size() > 1 || !d.has_credentials || d.claimed != peer) return false;
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
  const auto count = static_cast<std::size_t>(n);

  // The sending sockets, allgathered.
  Endpoint mine_out;
  std::string why;
  int err = 0;
  const UniqueFd out = sending_socket(mine_out, why, err);
  std::vector<Endpoint> senders(count);
  mpi_check(MPI_Allgather(&mine_out, sizeof mine_out, MPI_BYTE, senders.data(), sizeof mine_out, MPI_BYTE, node),
            "MPI_Allgather");

  // A receiving socket per peer, sealed to its sending socket; peer p
  // learns the address to send to here.
  std::vector<UniqueFd> in(count);
  std::vector<Endpoint> receivers(count), send_to(count);
  for (int p = 0; p < n; ++p) {
    const auto i = static_cast<std::size_t>(p);
    if (p == me || senders[i].length == 0) continue;
    std::string failed;
    in[i] = receiving_socket(senders[i], receivers[i], failed);
    if (why.empty()) why = failed;
  }
  mpi_check(MPI_Alltoall(receivers.data(), sizeof(Endpoint), MPI_BYTE, send_to.data(), sizeof(Endpoint), MPI_BYTE,
                         node),
            "MPI_Alltoall");

  // Every descriptor sent, then who sent what told: a rank waits only for
  // datagrams already queued.
  std::vector<int> sent(count, 0), coming(count, 0);
  for (int p = 0; p < n; ++p) {
    const auto i = static_cast<std::size_t>(p);
    if (p != me && out.get() >= 0 && mine >= 0 && send_to[i].length > 0)
      sent[i] = send_descriptor(out.get(), send_to[i], p, mine, me, why) ? 1 : 0;
  }
  mpi_check(MPI_Alltoall(sent.data(), 1, MPI_INT, coming.data(), 1, MPI_INT, node), "MPI_Alltoall");

  for (int p = 0; p < n; ++p) {
    const auto i = static_cast<std::size_t>(p);
    if (p == me) continue;
    if (!coming[i]) {
      if (why.empty()) why = "node rank " + std::to_string(p) + " could not pass its descriptor";
      continue;
    }
    Datagram d;
    if (!receive_datagram(in[i].get(), d, why)) continue;
    if (!authentic(d, p, senders[i])) {
      ++result.forged;
      result.forged_from = sender_of(d);
      if (why.empty()) why = "no authentic descriptor arrived from node rank " + std::to_string(p);
      continue;
    }
    if (d.truncated || d.fds.empty()) {
      // The kernel drops a descriptor it cannot install (out of descriptors).
      if (why.empty()) why = system_error("recvmsg(SCM_RIGHTS) from node rank " + std::to_string(p), EMFILE);
      continue;
    }
    result.of[i] = std::move(d.fds.front());
  }
  result.why = why;
  return result;
}

std::string descriptor_passing_unavailable() {
  // Kept for the process: a passing lack of descriptors or memory is no
  // verdict (share_descriptor reports it when it happens). The probe's
  // socket is a sending one: nothing can be queued at it while it lives.
  static const std::string reason = [] {
    Endpoint endpoint;
    std::string why;
    int err = 0;
    const UniqueFd s = sending_socket(endpoint, why, err);
    return is_resource_error(err) ? std::string() : why;
  }();
  return reason;
}

}  // namespace mpix
