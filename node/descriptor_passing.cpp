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

// A bound socket's address as it travels in the allgather; length 0: none.
struct Address {
  int length = 0;
  char path[sizeof(sockaddr_un::sun_path)] = {};
};

// A datagram socket bound to a fresh abstract address (autobind); empty,
// with why and err (the errno), where that fails.
UniqueFd bound_socket(Address& address, std::string& why, int& err) {
  UniqueFd s(socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  const char* failed = nullptr;
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  socklen_t length = sizeof a;
  if (s.get() < 0)
    failed = "socket(AF_UNIX)";
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
  address.length = static_cast<int>(length);
  std::memcpy(address.path, a.sun_path, length - offsetof(sockaddr_un, sun_path));
  return s;
}

// Sends fd, tagged with the sender's node rank, to the socket at address.
bool send_descriptor(int s, const Address& to, int fd, int sender, std::string& why) {
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
  do n = sendmsg(s, &m, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  if (n == static_cast<ssize_t>(sizeof sender)) return true;
  why = system_error("sendmsg(SCM_RIGHTS)", errno);
  return false;
}

// Rounds between barriers: fewer than net.unix.max_dgram_qlen's default.
constexpr int rounds_per_barrier = 8;

// Receives one queued datagram: its sender's node rank (-1 on failure) and
// descriptor.
int receive_descriptor(int s, UniqueFd& fd, std::string& why) {
  int sender = -1;
  iovec payload{&sender, sizeof sender};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr m{};
  m.msg_iov = &payload;
  m.msg_iovlen = 1;
  m.msg_control = control;
  m.msg_controllen = sizeof control;
  ssize_t n;
  do n = recvmsg(s, &m, MSG_CMSG_CLOEXEC);
  while (n < 0 && errno == EINTR);
  if (n < 0) {
    why = system_error("recvmsg(SCM_RIGHTS)", errno);
    return -1;
  }
  const cmsghdr* c = CMSG_FIRSTHDR(&m);
  if (c != nullptr && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
    int received = -1;
    std::memcpy(&received, CMSG_DATA(c), sizeof received);
    fd.reset(received);
  }
  if (m.msg_flags & MSG_CTRUNC) {
    // The kernel drops a descriptor it cannot install (out of descriptors).
    why = system_error("recvmsg(SCM_RIGHTS) from node rank " + std::to_string(sender), EMFILE);
    fd.reset();
  }
  return sender;
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

  Address address;
  std::string why;
  int err = 0;
  const UniqueFd s = bound_socket(address, why, err);
  std::vector<Address> all(static_cast<std::size_t>(n));
  mpi_check(MPI_Allgather(&address, sizeof address, MPI_BYTE, all.data(), sizeof address, MPI_BYTE, node),
            "MPI_Allgather");
  std::vector<bool> arrived(static_cast<std::size_t>(n), false);
  for (int r = 1; r < n; ++r) {
    const int to = (me + r) % n, from = (me - r + n) % n;
    int sent = 0, coming = 0;
    if (s.get() >= 0 && mine >= 0 && all[static_cast<std::size_t>(to)].length > 0)
      sent = send_descriptor(s.get(), all[static_cast<std::size_t>(to)], mine, me, why) ? 1 : 0;
    mpi_check(MPI_Sendrecv(&sent, 1, MPI_INT, to, 0, &coming, 1, MPI_INT, from, 0, node, MPI_STATUS_IGNORE),
              "MPI_Sendrecv");
    // Datagrams of later rounds that came first are kept in result.of.
    while (coming && !arrived[static_cast<std::size_t>(from)]) {
      UniqueFd fd;
      const int sender = receive_descriptor(s.get(), fd, why);
      if (sender < 0 || sender >= n) break;
      arrived[static_cast<std::size_t>(sender)] = true;
      result.of[static_cast<std::size_t>(sender)] = std::move(fd);
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
    Address address;
    std::string why;
    int err = 0;
    const UniqueFd s = bound_socket(address, why, err);
    return is_resource_error(err) ? std::string() : why;
  }();
  return reason;
}

}  // namespace mpix
