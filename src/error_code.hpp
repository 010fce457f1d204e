// Codes that carry the library's message through MPI_Error_string.
//
// The C API returns an MPI error code, and MPI's conventions let a code say
// more than its class: a user prints it with MPI_Error_string and tests it
// with MPI_Error_class. So each error the library returns is a code of its
// own, added to the error's class with MPI_Add_error_code, whose text is
// the full message (the function, the argument and its value, the rank).
//
// MPI has no call that frees a code, and MPICH holds a few thousand, so
// each class has a ring of a few codes, reused oldest first: a code's text
// is that of the error it was returned for until the ring comes round,
// several errors of its class later. MPIX_Error_string still gives the
// message of this thread's last error whatever became of its code.
//
// Where the MPI cannot add a code that reads back (mpi_implementation::
// add_error_code), the error keeps its class as its code, and only
// MPIX_Error_string has the message.
#pragma once

#include <string>

namespace mpix {

// A code of code's class whose MPI_Error_string is message (cut to what MPI
// holds), or code itself where MPI cannot make one. MPI must be usable.
int code_with_message(int code, const std::string& message);

}  // namespace mpix
