// Handing a file descriptor to every node peer without ptrace permission.
//
// pidfd_getfd (and CMA) let a process take a peer's descriptor only where
// the kernel grants ptrace access between them: refused for non-dumpable
// processes, under Yama ptrace_scope 2 and 3, and in containers without the
// capability. Passing the descriptor over a Unix-domain socket (SCM_RIGHTS)
// needs no such permission: it is how unrelated processes share memory by
// design, and only processes the socket's owner sends to receive it.
//
// Protocol (collective over the node communicator, creation time only):
//  - every rank makes a sending socket: reading shut down first, then bound
//    to a kernel-chosen abstract address (autobind: unique, no file left
//    behind, gone with the socket); the addresses are allgathered with each
//    rank's pid and uid;
//  - for every peer, a rank makes a receiving socket that is connected to
//    that peer's sending address before it is bound, asks for its senders'
//    credentials (SO_PASSCRED), and the receiving addresses go to their
//    peers in an alltoall: each rank learns, per peer, the one address at
//    which that peer will take its descriptor;
//  - every rank sends its descriptor to each of those addresses, then the
//    ranks tell each other in an alltoall whether each send worked. A
//    datagram is queued at its receiver when sendmsg returns, so a rank
//    told "sent" receives it without waiting, and a rank told "not sent"
//    does not wait at all: no rank can hang on a peer that failed. Each
//    receiving socket gets one datagram, so no queue of the job fills.
//
// Trust: any local user can see an abstract name (/proc/net/unix) and send
// to it; abstract names carry no permissions. So no socket of the protocol
// can be sent to by a stranger at all:
//  - the kernel refuses a datagram for a socket whose reading is shut down
//    (EPIPE), and the sending sockets are shut before they have a name;
//  - it refuses a datagram for a connected socket from anyone but its peer
//    (EPERM), and the receiving sockets are connected before they have a
//    name; the peer's address is one no other socket can hold while the
//    peer's socket lives.
// Receiving nothing from strangers matters beyond forgery: a descriptor
// goes to its last close wherever its last reference drops, and closing
// one can block for as long as the process on its other side likes (a TCP
// socket with SO_LINGER and a full send queue waits until its data is
// acknowledged). A stranger's descriptor that was queued at one of our
// sockets would be closed when we dequeued it, or when we closed the socket
// it waited in: set-up would wait for the stranger. Now none can be queued.
// What arrives is still checked as before: a datagram is taken only if the
// kernel-written credentials (SCM_CREDENTIALS) name the peer's pid and uid,
// its source is the peer's sending address, it names the peer's node rank
// and carries exactly one descriptor. Anything else is counted as forged,
// and its descriptors, sockets aborted first (SO_LINGER 0: reset, not
// drained), are closed. Sends and receives never block (MSG_DONTWAIT). The
// abstract namespace stays, rather than a socket file in a private 0700
// directory, because a killed job then leaves nothing behind, and the
// sealed sockets make being seen harmless. Ranks in different pid
// namespaces see each other's pids differently: their datagrams fail the
// check and the caller falls back. Sockets of processes in different
// network namespaces cannot reach each other: the connect or the send
// fails, and the caller falls back with the reason.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

namespace mpix {

// An owned file descriptor; -1 when empty.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() { reset(); }
  UniqueFd(UniqueFd&& o) noexcept : fd_(o.release()) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept {
    if (this != &o) reset(o.release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

struct SharedDescriptors {
  std::vector<UniqueFd> of;  // per node rank: its descriptor, received here; empty for this rank
  std::string why;           // empty if every peer's descriptor arrived; otherwise the first reason
  int forged = 0;            // datagrams dropped: not the peer's, as the kernel saw them
  std::string forged_from;   // the last dropped datagram's sender, as the kernel reported it
};

// Collective over node (every rank calls it, mine may be -1 for "none"):
// every node rank's descriptor, duplicated into this process.
SharedDescriptors share_descriptor(MPI_Comm node, int mine);

// Empty if this process can create, shut and bind the sockets
// share_descriptor uses; otherwise why not (seccomp, a kernel without Unix
// sockets).
std::string descriptor_passing_unavailable();

}  // namespace mpix
