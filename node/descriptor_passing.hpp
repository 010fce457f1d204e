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
//  - every rank binds a datagram socket to a kernel-chosen abstract address
//    (autobind: unique, no file left behind, gone with the socket), asks the
//    kernel for its senders' credentials (SO_PASSCRED), and the addresses
//    are allgathered with each rank's pid and uid;
//  - in round r = 1 .. n-1 a rank sends its descriptor to node rank me + r
//    and then tells that rank, by an MPI message, whether the send worked,
//    while it learns the same from node rank me - r. A datagram is queued at
//    its receiver when sendmsg returns, so a rank told "sent" receives it
//    without waiting, and a rank told "not sent" does not wait at all: no
//    rank can hang on a peer that failed.
//  - ranks are not in the same round at once, so a datagram of a later
//    round may come first: each carries its sender's node rank and is kept
//    until its round. A barrier every few rounds bounds what can queue at a
//    receiver below the kernel's datagram queue length (net.unix.
//    max_dgram_qlen, 10 by default), so no send of the job fills a queue.
//
// Trust: any local user can see an abstract name (/proc/net/unix) and send
// to it; abstract names carry no permissions. So the node rank a datagram
// names is only a claim. A datagram is taken only if both hold:
//  - the kernel-written credentials (SCM_CREDENTIALS; a sender cannot forge
//    them without CAP_SYS_ADMIN and CAP_SETUID, which already own every
//    process of the user) name the claimed rank's pid and uid;
//  - its source address is the claimed rank's bound abstract address, which
//    no other socket can hold while that rank's socket lives.
// Anything else is dropped (its descriptors closed unmapped) and counted.
// Receives and sends never block (MSG_DONTWAIT), so a flood of forged
// datagrams ends at worst in a fallback with its reason, never in a hang or
// in a mapping of someone else's memory. The abstract namespace stays,
// rather than a socket file in a private 0700 directory, because a killed
// job then leaves nothing behind, and the checks above make being seen
// harmless. Ranks in different pid namespaces see each other's pids
// differently: their datagrams fail the check and the caller falls back.
// Sockets of processes in different network namespaces cannot reach each
// other: the send fails, and the caller falls back with the reason.
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
  int forged = 0;            // datagrams dropped: not sent by the node rank they named
  std::string forged_from;   // the last dropped datagram's sender, as the kernel reported it
};

// Collective over node (every rank calls it, mine may be -1 for "none"):
// every node rank's descriptor, duplicated into this process.
SharedDescriptors share_descriptor(MPI_Comm node, int mine);

// Empty if this process can create and bind the socket share_descriptor
// uses; otherwise why not (seccomp, a kernel without Unix sockets).
std::string descriptor_passing_unavailable();

}  // namespace mpix
