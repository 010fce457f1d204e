// The C API's one pattern: run the body, turn an exception into an MPI
// error code, record its message and raise it on the communicator's error
// handler (MPI_COMM_SELF when there is none), as MPI's own calls do.
#pragma once

#include <mpi.h>

#include <cstdio>
#include <new>
#include <string>
#include <type_traits>

#include "src/error.hpp"
#include "src/error_code.hpp"
#include "src/library.hpp"
#include "src/mpi_implementation.hpp"

namespace mpix {

inline std::string rank_label() {
  int initialized = 0, finalized = 0, rank = -1;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank >= 0 ? "rank " + std::to_string(rank) : "rank ?";
}

inline bool mpi_usable() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
}

// Returns a code of the error's class that carries the message through
// MPI_Error_string (src/error_code.hpp), records the message for
// MPIX_Error_string and raises the error on comm's error handler. A fatal
// handler would only print the error class, so the full message is
// printed first.
inline int raise(MPI_Comm comm, const char* function, int code, const char* what) {
  const std::string message = "mpix-rma (" + rank_label() + "): " + function + ": " + what;
  if (!mpi_usable()) {
    mpix::remember_error(code, message);
    return code;
  }
  code = mpix::code_with_message(code, message);
  mpix::remember_error(code, message);
  if (comm == MPI_COMM_NULL) comm = MPI_COMM_SELF;
  MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
  if (MPI_Comm_get_errhandler(comm, &handler) == MPI_SUCCESS) {
    if (mpi_implementation::is_fatal(handler))
      std::fprintf(stderr, "%s\n", message.c_str());
    MPI_Errhandler_free(&handler);
  }
  mpi_implementation::call_errhandler(comm, code);
  return code;
}

inline void require(bool ok, int code, const std::string& message) {
  if (!ok) throw Error(code, message);
}
// Whether h is a handle the library handed out and has not freed: only such
// a handle may be dereferenced, even to find its communicator.
template <class Handle>
bool is_live(const Handle* h) {
  Library* library = Library::alive();  // null before first use and after MPI_Finalize: no live handle
  return h != nullptr && library != nullptr && library->owns(h);
}

// h itself, or an Error of class code naming the argument: NULL, freed, or
// not made by this library.
[[noreturn, gnu::cold]] inline void throw_not_live(bool null, int code, const char* argument, const char* type) {
  if (null) throw Error(code, std::string(argument) + " is NULL");
  throw Error(code, std::string(argument) + " is not a live " + type + " (freed already, or not one)");
}
template <class Handle>
Handle& live(Handle* h, int code, const char* argument, const char* type) {
  if (h == nullptr || !is_live(h)) throw_not_live(h == nullptr, code, argument, type);
  return *h;
}


// Runs body; an exception becomes the error code raised on comm. comm is
// an MPI_Comm, or a callable that finds it: calls on a handle pass one, so
// that finding the handle's communicator (a second check of the handle)
// costs nothing unless the call fails.
template <class CommOrFinder, class Body>
int guarded(const char* function, CommOrFinder&& comm, Body&& body) {
  const auto raise_on_comm = [&](int code, const char* what) {
    if constexpr (std::is_invocable_r_v<MPI_Comm, CommOrFinder>)
      return raise(comm(), function, code, what);
    else
      return raise(comm, function, code, what);
  };
  try {
    body();
    return MPI_SUCCESS;
  } catch (const Error& e) {
    return raise_on_comm(e.code(), e.what());
  } catch (const std::bad_alloc&) {
    return raise_on_comm(MPI_ERR_NO_MEM, "out of memory");
  } catch (const std::exception& e) {
    return raise_on_comm(MPI_ERR_INTERN, e.what());
  }
}

}  // namespace mpix
