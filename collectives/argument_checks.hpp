// The checks every collective family makes of its user's arrays and
// buffers, with messages that name the argument and the element, and the
// hash by which ranks compare the algorithm names they ask for.
#pragma once

#include <mpi.h>

#include <optional>
#include <string>
#include <vector>

namespace mpix {

// FNV-1a of name, folded into MPI_Count's range.
MPI_Count name_hash(const std::string& name);

// "array[index]", for messages.
std::string at(const char* array, int index);

// A copy of n non-negative values; MPI_ERR_ARG for a NULL array (unless n is
// 0: a rank without neighbours may pass NULL), MPI_ERR_COUNT naming the
// first negative element.
std::vector<int> copy_counts(const int* values, int n, const char* name);

// MPI_ERR_BUFFER if buffer (named "sendbuf" or "recvbuf") is NULL while a
// count of a non-empty type is positive, naming that count.
void check_buffer(const void* buffer, const std::vector<int>& counts, MPI_Count type_size, const char* name);

// An integer info value in [least, 2^31), or otherwise when the key is
// unset; MPI_ERR_INFO_VALUE naming the key and the value.
long parse_count_hint(const char* key, const std::optional<std::string>& hint, long least, long otherwise);

}  // namespace mpix
