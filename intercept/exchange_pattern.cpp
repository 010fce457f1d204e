#include "intercept/exchange_pattern.hpp"

#include <algorithm>
#include <climits>
#include <cstring>

namespace mpix::intercept {

namespace {

// The bytes of one element of type, if the type is moved exactly by copying
// its bytes: a predefined type, or a contiguous run of one (no holes, lower
// bound 0); else 0. Moving such types as bytes gives what MPI's typed
// transfer gives whenever the send and receive type signatures match, as
// MPI requires.
MPI_Aint byte_movable_element(MPI_Datatype type) {
  if (type == MPI_DATATYPE_NULL) return 0;
  int integers = 0, addresses = 0, types = 0, combiner = 0;
  if (PMPI_Type_get_envelope(type, &integers, &addresses, &types, &combiner) != MPI_SUCCESS) return 0;
  if (combiner != MPI_COMBINER_NAMED) {
    if (combiner != MPI_COMBINER_CONTIGUOUS || integers != 1 || types != 1) return 0;
    int count = 0;
    MPI_Aint unused = 0;
    MPI_Datatype base = MPI_DATATYPE_NULL;
    if (PMPI_Type_get_contents(type, 1, 0, 1, &count, &unused, &base) != MPI_SUCCESS) return 0;
    int base_integers = 0, base_addresses = 0, base_types = 0, base_combiner = 0;
    PMPI_Type_get_envelope(base, &base_integers, &base_addresses, &base_types, &base_combiner);
    if (base_combiner != MPI_COMBINER_NAMED) {
      PMPI_Type_free(&base);  // get_contents hands out a derived base type as a new handle
      return 0;
    }
  }
  int size = 0;
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  if (PMPI_Type_size(type, &size) != MPI_SUCCESS || PMPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS ||
      PMPI_Type_get_true_extent(type, &true_lb, &true_extent) != MPI_SUCCESS)
    return 0;
  if (lb != 0 || true_lb != 0 || size <= 0 || extent != size || true_extent != size) return 0;
  return size;
}

// Copies counts and displacements; false if any is negative or its bytes do
// not fit an int.
bool copy_checked(const int* counts, const int* displs, int n, MPI_Aint element, std::vector<int>& c,
                  std::vector<int>& d, std::int64_t& largest) {
  c.clear();
  d.clear();
  if (n == 0) return true;  // a rank without neighbours may pass NULL
  if (counts == nullptr || displs == nullptr) return false;
  c.assign(counts, counts + n);
  d.assign(displs, displs + n);
  for (int i = 0; i < n; ++i) {
    const std::int64_t bytes = static_cast<std::int64_t>(counts[i]) * element;
    if (counts[i] < 0 || displs[i] < 0 || static_cast<std::int64_t>(displs[i]) * element + bytes > INT_MAX)
      return false;
    if (bytes > largest) largest = bytes;
  }
  return true;
}

std::uint64_t mix(std::uint64_t h, std::uint64_t v) { return (h ^ v) * 0x100000001b3ULL; }  // FNV-1a words

// A handle's bits (an int in MPICH, a pointer in Open MPI).
template <class Handle>
std::uint64_t bits_of(Handle h) {
  std::uint64_t v = 0;
  std::memcpy(&v, &h, sizeof h < sizeof v ? sizeof h : sizeof v);
  return v;
}

std::uint64_t mix_array(std::uint64_t h, const int* v, int n) {
  if (v == nullptr) return mix(h, 0x51ed27);
  for (int i = 0; i < n; ++i) h = mix(h, static_cast<std::uint32_t>(v[i]));
  return h;
}

}  // namespace

std::uint64_t CallArguments::hash() const {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  h = mix(h, in_place() ? 1 : 2);
  h = mix(h, bits_of(recvtype));
  h = mix_array(mix_array(h, recvcounts, recv_entries), rdispls, recv_entries);
  if (!in_place()) {
    h = mix(h, bits_of(sendtype));
    h = mix_array(mix_array(h, sendcounts, send_entries), sdispls, send_entries);
  }
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  return h ^ (h >> 33);
}

void ExchangePattern::describe(const CallArguments& call) {
  servable = false;
  in_place = call.in_place();
  largest_block = 0;
  // A served call never reaches MPI's argument checks, so a buffer any MPI
  // may reject is MPI's to judge: MPI_IN_PLACE to receive, the same buffer
  // to send and receive (MPICH rejects that as MPI_ERR_BUFFER even for NULL
  // buffers and zero counts), NULL where a block moves (checked below).
  if (call.recvbuf == MPI_IN_PLACE || (!in_place && call.sendbuf == call.recvbuf)) return;
  recv_element = byte_movable_element(call.recvtype);
  if (recv_element == 0 ||
      !copy_checked(call.recvcounts, call.rdispls, call.recv_entries, recv_element, recvcounts, rdispls, largest_block))
    return;
  if (in_place) {
    // MPI ignores the send arguments: blocks leave from recvbuf's layout.
    send_element = recv_element;
    sendcounts = recvcounts;
    sdispls = rdispls;
  } else {
    send_element = byte_movable_element(call.sendtype);
    if (send_element == 0 ||
        !copy_checked(call.sendcounts, call.sdispls, call.send_entries, send_element, sendcounts, sdispls, largest_block))
      return;
  }
  auto moves = [](const std::vector<int>& counts) {
    return std::any_of(counts.begin(), counts.end(), [](int c) { return c > 0; });
  };
  if ((call.recvbuf == nullptr && moves(recvcounts)) || (!in_place && call.sendbuf == nullptr && moves(sendcounts)))
    return;
  servable = true;
}

std::int64_t ExchangePattern::uniform_block() const {
  if (!servable || in_place || sendcounts.empty() || sendcounts.size() != recvcounts.size()) return -1;
  const std::int64_t block = static_cast<std::int64_t>(sendcounts[0]) * send_element;
  for (std::size_t r = 0; r < sendcounts.size(); ++r)
    if (static_cast<std::int64_t>(sendcounts[r]) * send_element != block ||
        static_cast<std::int64_t>(recvcounts[r]) * recv_element != block ||
        static_cast<std::int64_t>(sdispls[r]) * send_element != static_cast<std::int64_t>(r) * block ||
        static_cast<std::int64_t>(rdispls[r]) * recv_element != static_cast<std::int64_t>(r) * block)
      return -1;
  return block;
}

std::size_t ExchangePattern::span_bytes(const std::vector<int>& counts, const std::vector<int>& displs,
                                        MPI_Aint element) {
  std::size_t end = 1;
  for (std::size_t i = 0; i < counts.size(); ++i)
    if (counts[i] > 0)
      end = std::max(end, static_cast<std::size_t>(displs[i] + counts[i]) * static_cast<std::size_t>(element));
  return end;
}

std::vector<int> ExchangePattern::in_bytes(const std::vector<int>& v, MPI_Aint element) {
  std::vector<int> bytes(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) bytes[i] = static_cast<int>(v[i] * element);
  return bytes;
}

}  // namespace mpix::intercept
