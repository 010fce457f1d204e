#include "src/agree.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

namespace mpix {

namespace {
struct WireError {
  int code;
  char message[MPI_MAX_ERROR_STRING];
};
}  // namespace

namespace {

constexpr const char* this_rank_marker = "; on this rank: ";

// "on rank 3: X; on this rank: Y" -> "X"; a message without a rank -> itself.
std::string located_reason(const std::string& message) {
  std::string reason = message.substr(0, message.find(this_rank_marker));
  if (reason.compare(0, 8, "on rank ") == 0) {
    const std::size_t colon = reason.find(": ");
    if (colon != std::string::npos) reason = reason.substr(colon + 2);
  }
  return reason;
}

// This rank's own reason in its local error: the message itself, or, from a
// nested agreement, what that one said of this rank ("" where this rank
// only heard of another's).
std::string own_reason(const std::string& message) {
  if (message.compare(0, 8, "on rank ") != 0) return message;
  const std::size_t at = message.find(this_rank_marker);
  return at == std::string::npos ? std::string() : message.substr(at + std::strlen(this_rank_marker));
}

}  // namespace

void agree_on_error(MPI_Comm comm, const std::optional<Error>& local) {
  int rank = 0, size = 0;
  mpi_check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  mpi_check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  int first_failing = local ? rank : size;
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, &first_failing, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  if (first_failing == size) return;

  // Only the error path pays for the broadcast of the message.
  WireError wire{};
  if (rank == first_failing) {
    wire.code = local->code();
    const std::string text = local->what();
    std::memcpy(wire.message, text.data(), std::min(text.size(), sizeof wire.message - 1));
  }
  mpi_check(MPI_Bcast(&wire, static_cast<int>(sizeof wire), MPI_BYTE, first_failing, comm), "MPI_Bcast");
  // A message from an agreement nested inside this one names its rank
  // already; what it adds "on this rank" was the first failing rank's own.
  const std::string message(wire.message);
  const std::string first_reason = located_reason(message);
  std::string located = message.compare(0, 8, "on rank ") == 0
                            ? message.substr(0, message.find(this_rank_marker))
                            : "on rank " + std::to_string(first_failing) + ": " + message;
  // A rank that failed too adds its own reason where it differs: resource
  // limits and kernel refusals differ between ranks, and each rank's log
  // should say its own. Its reason from a nested agreement is what that
  // one said of this rank, if anything.
  if (local && rank != first_failing) {
    const std::string own = own_reason(local->what());
    if (!own.empty() && own != first_reason) located += this_rank_marker + own;
  }
  throw Error(wire.code, located);
}

namespace {
std::uint64_t fingerprint(const std::string& text) {
  std::uint64_t hash = 1469598103934665603ULL;
  for (unsigned char c : text) hash = (hash ^ c) * 1099511628211ULL;
  return hash;
}
}  // namespace

void agree_on_values(MPI_Comm comm, const std::vector<NamedValue>& values, int error_code) {
  // Per value its fingerprint and the complement of it: one MPI_MIN gives
  // the smallest and the largest fingerprint over the ranks.
  const std::size_t n = values.size();
  std::vector<std::uint64_t> extremes(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    extremes[i] = fingerprint(values[i].value);
    extremes[n + i] = ~extremes[i];
  }
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, extremes.data(), static_cast<int>(2 * n), MPI_UINT64_T, MPI_MIN, comm),
            "MPI_Allreduce");
  std::size_t differing = n;
  for (std::size_t i = 0; i < n && differing == n; ++i)
    if (extremes[i] != ~extremes[n + i]) differing = i;
  if (differing == n) return;

  // Only a mismatch pays for naming the ranks.
  int rank = 0, size = 0;
  mpi_check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  mpi_check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  std::vector<std::uint64_t> all(static_cast<std::size_t>(size));
  std::uint64_t mine = fingerprint(values[differing].value);
  mpi_check(MPI_Allgather(&mine, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, comm), "MPI_Allgather");
  const std::string rank0_value = broadcast_text(values[differing].value, 0, comm);
  std::string ranks;
  for (int r = 1; r < size; ++r)
    if (all[static_cast<std::size_t>(r)] != all[0]) ranks += (ranks.empty() ? "" : ",") + std::to_string(r);
  throw Error(error_code, values[differing].name + " must be the same on every rank: rank 0 has '" + rank0_value +
                              "', rank" + (ranks.find(',') == std::string::npos ? " " : "s ") + ranks +
                              " differ (this rank: '" + values[differing].value + "')");
}

std::string broadcast_text(const std::optional<std::string>& mine, int root, MPI_Comm comm) {
  char text[MPI_MAX_ERROR_STRING] = {};
  if (mine) std::memcpy(text, mine->data(), std::min(mine->size(), sizeof text - 1));
  mpi_check(MPI_Bcast(text, static_cast<int>(sizeof text), MPI_CHAR, root, comm), "MPI_Bcast");
  return text;
}

}  // namespace mpix
