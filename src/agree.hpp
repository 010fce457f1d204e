// Collective agreement on errors: a collective call that fails on one rank
// must fail on every rank, with the same code and message, and never leave a
// rank waiting in a later collective for a peer that bailed out.
#pragma once

#include <mpi.h>

#include <new>
#include <optional>
#include <string>
#include <vector>

#include "src/error.hpp"

namespace mpix {

// Collective over comm. Returns if no rank passes an error; otherwise every
// rank throws the error of the lowest failing rank, naming that rank; a rank
// that failed as well adds its own reason.
void agree_on_error(MPI_Comm comm, const std::optional<Error>& local);

// Collective over comm: root's text (mine there) on every rank.
std::string broadcast_text(const std::optional<std::string>& mine, int root, MPI_Comm comm);

// A value that must be the same on every rank, by name.
struct NamedValue {
  std::string name;
  std::string value;
};

// Collective over comm, one MPI_Allreduce when all agree: throws, on every
// rank, an Error of class error_code naming the first value that differs,
// rank 0's value and the ranks whose value differs from it.
void agree_on_values(MPI_Comm comm, const std::vector<NamedValue>& values, int error_code);

// Runs step on every rank of comm, then agrees on its outcome. Any exception
// counts: one that escaped would skip the agreement and leave the other
// ranks waiting in it.
template <class Step>
void agreed(MPI_Comm comm, Step&& step) {
  std::optional<Error> local;
  try {
    step();
  } catch (const Error& e) {
    local = e;
  } catch (const std::bad_alloc&) {
    local.emplace(MPI_ERR_NO_MEM, "out of memory");
  } catch (const std::exception& e) {
    local.emplace(MPI_ERR_INTERN, e.what());
  } catch (...) {
    local.emplace(MPI_ERR_INTERN, "unknown exception");
  }
  agree_on_error(comm, local);
}

}  // namespace mpix
