// Command lines of the tools and benchmarks, parsed by CLI11: --help is
// generated from the option definitions, values are typed and checked.
// Every rank of a job parses the same arguments, so every rank ends alike:
// --help or an error is printed by rank 0, and the job finishes normally
// (MPI_Finalize, then exit status 0 for --help, 2 for an error), never by
// MPI_Abort.
#pragma once

#include <mpi.h>

// smpicxx (MPIX_MPI=simgrid) puts SMPI's smpi_helpers.h before every file,
// whose function-like macro exit would rewrite CLI11's App::exit. The tools
// end by returning from main, which SMPI handles.
#ifdef exit
#undef exit
#endif
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace mpix_timing {

// Parses argv into app's options, or ends the program as described above.
// Callable before MPI_Init (the program then just exits).
inline void parse_or_exit(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int initialized = 0, finalized = 0, rank = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    const bool mpi = initialized && !finalized;
    if (mpi) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int code = rank == 0 ? app.exit(e) : e.get_exit_code();
    if (mpi) MPI_Finalize();
    std::exit(code == 0 ? 0 : 2);
  }
}

// After parsing: a check across options failed. Rank 0 prints
// "program: why", and the job finishes with status 2, as for a parse error.
[[noreturn]] inline void exit_with_error(const std::string& program, const std::string& why) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) std::fprintf(stderr, "%s: %s\n", program.c_str(), why.c_str());
  MPI_Finalize();
  std::exit(2);
}

}  // namespace mpix_timing
