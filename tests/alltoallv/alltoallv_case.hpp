// Alltoallv test cases: who sends how much to whom (patterns), how blocks are
// laid out in the buffers, which datatype carries them, and an oracle run.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace mpix_test {

// counts[src][dst]: elements rank src sends to rank dst.
using CountMatrix = std::vector<std::vector<int>>;

struct Pattern {
  const char* name;
  bool gaps;      // unused elements between blocks in both buffers
  bool reversed;  // receive blocks stored in decreasing source order
  CountMatrix (*counts)(int p);
};
const std::vector<Pattern>& patterns();
// A pattern where counts[i][j] == counts[j][i], as MPI_IN_PLACE requires.
CountMatrix symmetric_counts(int p);

struct DatatypeCase {
  const char* name;
  bool contiguous;
  MPI_Datatype (*make)();  // committed; free with MPI_Type_free unless predefined
  bool predefined;
};
const std::vector<DatatypeCase>& datatype_cases();

// One rank's arguments for a pattern.
struct Exchange {
  std::vector<int> sendcounts, sdispls, recvcounts, rdispls;
  std::size_t send_elements = 0, recv_elements = 0;  // buffer lengths
};
Exchange make_exchange(const CountMatrix& counts, int rank, bool gaps, bool reversed);

// Bytes that change with the iteration, so a stale receive cannot pass.
void fill_send(std::vector<unsigned char>& buffer, int iteration, int rank);
inline constexpr unsigned char poison = 0xA5;

// Index of the first differing byte, or -1.
long first_difference(const std::vector<unsigned char>& a, const std::vector<unsigned char>& b);

}  // namespace mpix_test
