#include "tests/alltoallv/alltoallv_case.hpp"

#include <random>

namespace mpix_test {

namespace {

CountMatrix filled(int p, int value) { return CountMatrix(p, std::vector<int>(p, value)); }

CountMatrix random_counts(int p, unsigned seed, int max, double zero_share) {
  std::mt19937 rng(seed);  // same seed on every rank: the same matrix
  std::uniform_int_distribution<int> count(1, max);
  std::bernoulli_distribution zero(zero_share);
  CountMatrix c = filled(p, 0);
  for (auto& row : c)
    for (int& v : row) v = zero(rng) ? 0 : count(rng);
  return c;
}

MPI_Datatype predefined_int() { return MPI_INT; }
MPI_Datatype predefined_double() { return MPI_DOUBLE; }
MPI_Datatype contiguous_triple() {
  MPI_Datatype t;
  MPI_Type_contiguous(3, MPI_INT, &t);
  MPI_Type_commit(&t);
  return t;
}
// Two ints three apart: 8 bytes of data in a 16-byte extent, holes inside.
MPI_Datatype strided_pair() {
  MPI_Datatype t;
  MPI_Type_vector(2, 1, 3, MPI_INT, &t);
  MPI_Type_commit(&t);
  return t;
}

}  // namespace

const std::vector<Pattern>& patterns() {
  static const std::vector<Pattern> all = {
      {"uniform", false, false, [](int p) { return filled(p, 5); }},
      {"random_with_zeros", false, false, [](int p) { return random_counts(p, 11, 9, 0.3); }},
      {"silent_rank", false, false,
       [](int p) {
         CountMatrix c = random_counts(p, 23, 7, 0.1);
         for (int& v : c[1 % p]) v = 0;  // rank 1 sends nothing
         for (auto& row : c) row[0] = 0;  // rank 0 receives nothing
         return c;
       }},
      {"skewed", false, false,
       [](int p) {
         CountMatrix c = random_counts(p, 37, 3, 0.0);
         for (int& v : c[0]) v = 3000;  // rank 0 sends far more than anyone
         return c;
       }},
      {"gapped_reversed", true, true, [](int p) { return random_counts(p, 41, 12, 0.2); }},
      {"all_zero", false, false, [](int p) { return filled(p, 0); }},
  };
  return all;
}

CountMatrix symmetric_counts(int p) {
  CountMatrix c = random_counts(p, 53, 9, 0.25);
  for (int i = 0; i < p; ++i)
    for (int j = 0; j < i; ++j) c[i][j] = c[j][i];
  return c;
}

const std::vector<DatatypeCase>& datatype_cases() {
  static const std::vector<DatatypeCase> all = {
      {"int", true, predefined_int, true},
      {"double", true, predefined_double, true},
      {"contiguous_triple", true, contiguous_triple, false},
      {"strided_pair", false, strided_pair, false},
  };
  return all;
}

Exchange make_exchange(const CountMatrix& counts, int rank, bool gaps, bool reversed) {
  const int p = static_cast<int>(counts.size());
  Exchange x;
  x.sendcounts.resize(p);
  x.sdispls.resize(p);
  x.recvcounts.resize(p);
  x.rdispls.resize(p);
  int send_end = 0, recv_end = 0;
  for (int k = 0; k < p; ++k) {
    const int gap = gaps ? 1 + (rank + k) % 3 : 0;
    x.sendcounts[k] = counts[rank][k];
    x.sdispls[k] = send_end + gap;
    send_end = x.sdispls[k] + x.sendcounts[k];
    const int src = reversed ? p - 1 - k : k;
    x.recvcounts[src] = counts[src][rank];
    x.rdispls[src] = recv_end + gap;
    recv_end = x.rdispls[src] + x.recvcounts[src];
  }
  x.send_elements = static_cast<std::size_t>(send_end) + (gaps ? 2 : 0);
  x.recv_elements = static_cast<std::size_t>(recv_end) + (gaps ? 2 : 0);
  return x;
}

void fill_send(std::vector<unsigned char>& buffer, int iteration, int rank) {
  std::uint32_t state = 0x9E3779B9u ^ (static_cast<std::uint32_t>(iteration) * 2654435761u) ^
                        (static_cast<std::uint32_t>(rank) << 20);
  for (unsigned char& byte : buffer) {
    state = state * 1664525u + 1013904223u;
    byte = static_cast<unsigned char>(state >> 24);
  }
}

long first_difference(const std::vector<unsigned char>& a, const std::vector<unsigned char>& b) {
  if (a.size() != b.size()) return 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return static_cast<long>(i);
  }
  return -1;
}

}  // namespace mpix_test
