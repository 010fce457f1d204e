// The drop-in's section of the configuration (MPIX_INTERCEPT*): its rows
// are in intercept_config.cpp, built into the library itself (not only the
// drop-in), so that mpix_info lists them and MPIX_Comm_init agrees on them in
// every program; they join the typed table through src/components.def.
#pragma once

#include "src/config.hpp"

namespace mpix {

// How the ranks agree before each call (intercept/agreement.hpp).
enum class AgreementPath { automatic, mpi, channel };

// When a repeating exchange is admitted (selector/admission.hpp).
enum class AdmissionPolicy {
  rent,     // once its calls have cost MPI enough to repay a search
  repeats,  // as soon as it repeats: programs known to run each exchange long, and tests
};

// Who runs MPI-4's persistent collectives (MPI_Alltoallv_init and kin).
enum class PersistentPolicy {
  progress,  // the library's rows that keep MPI's progress rule (Start local), else the MPI's own
  mpi,       // the MPI's own requests, as is
  library,   // auto: any row, whose Start and completion may wait for the other ranks'
};

// Who serves the blocking exchanges of a communicator set up for the
// claimed calls (intercept/claimed_exchanges.hpp).
enum class BlockingPath {
  claimed,  // the claimed calls, every call, with no agreement
  agreed,   // the agreed path (served_exchanges.hpp), as on every other communicator
};

struct InterceptConfig {
  bool enabled = true;     // serve repeated MPI_Alltoallv calls
  int repeats = 3;         // calls of a pattern before it is served
  int entries = 4;         // patterns kept per communicator
  long min_bytes = 8192;   // smallest largest-block served
  AgreementPath agreement = AgreementPath::automatic;
  AdmissionPolicy admission = AdmissionPolicy::rent;
  PersistentPolicy persistent = PersistentPolicy::progress;
  bool nonblocking = true;  // serve the nonblocking exchanges on one-node communicators
  BlockingPath blocking = BlockingPath::claimed;
};

}  // namespace mpix
