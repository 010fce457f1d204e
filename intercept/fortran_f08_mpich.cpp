// MPICH's `use mpi_f08` binding and the drop-in.
//
// Its exchanges, persistent inits and nonblocking exchanges
// (mpi_alltoallv_f08ts_, mpi_alltoallv_init_f08ts_, mpi_ialltoallv_f08ts_
// and kin) reach the C MPI_Alltoallv, MPI_Alltoallv_init, MPI_Ialltoallv,
// ..., which the drop-in serves. Its constructors and its request calls do
// not: mpi_init_f08_, mpi_comm_dup_f08_ and the rest call PMPI_Init,
// PMPI_Comm_dup, ..., and mpi_start_f08_, mpi_wait_f08_,
// mpi_request_free_f08_ and the rest PMPI_Start, PMPI_Wait, ... (objdump of
// libmpichfort, MPICH 4.0.2). Left so, a communicator made there would
// never be set up for nonblocking exchanges, and a served request would
// never run: MPI would start and complete its proxy, a send of nothing, at
// once, and the program would read a receive buffer nothing wrote. So this
// file stands in for both:
// - each constructor the C drop-in stands in for runs MPICH's own, then
//   sets up what it made, as the C one does (set_up_after);
// - each request call the C drop-in stands in for calls it, with
//   Fortran's arguments converted: the ignored statuses' sentinels, LOGICAL
//   flags, indices from 1. The C call serves its own requests and passes
//   the rest to PMPI_, as for a C program.
// (MPI_Cancel goes to PMPI_ from C too: nothing to stand in for.)
//
// MPICH's mpi_f08 handles are its C handles (MPI_VAL, a c_int), its
// MPI_Status is C's (bind(C)), and every argument is passed by reference
// (arrays as their first element's address, an absent optional ierror as
// null), as its own wrappers pass them to C.
#include <dlfcn.h>
#include <mpi.h>

#include "intercept/claimed_exchanges.hpp"

#if MPI_VERSION >= 4

namespace {

static_assert(sizeof(MPI_Fint) == sizeof(int) && sizeof(MPI_Request) == sizeof(MPI_Fint) &&
                  sizeof(MPI_Comm) == sizeof(MPI_Fint),
              "mpi_f08's handles are passed to C as they are");

// MPICH's own procedure of that name: the next definition after the
// drop-in's, in libmpichfort (loaded: the program called it).
template <class Procedure>
Procedure mpich_own(const char* name) {
  return reinterpret_cast<Procedure>(dlsym(RTLD_NEXT, name));
}

// The ierror a procedure hands MPICH's own: the program's, or one of its
// own where the program left it out, so that the error is known either way.
class Ierror {
 public:
  explicit Ierror(MPI_Fint* program) : at_(program != nullptr ? program : &own_) {}
  MPI_Fint* at() { return at_; }
  int code() const { return *at_; }

 private:
  MPI_Fint own_ = MPI_SUCCESS;
  MPI_Fint* at_;
};

// A C call's error code, where the program asked for it.
void returned(MPI_Fint* ierror, int rc) {
  if (ierror != nullptr) *ierror = rc;
}

// mpi_f08's MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE are objects (mpi.h
// declares them) whose addresses the program passes: as C's.
MPI_Status* c_status(MPI_Status* status) {
  return static_cast<void*>(status) == &MPIR_F08_MPI_STATUS_IGNORE_OBJ ? MPI_STATUS_IGNORE : status;
}
MPI_Status* c_statuses(MPI_Status* statuses) {
  return static_cast<void*>(statuses) == MPIR_F08_MPI_STATUSES_IGNORE_OBJ ? MPI_STATUSES_IGNORE : statuses;
}

// A C flag as a Fortran LOGICAL: MPICH's mpi_f08 is built by gfortran,
// whose .TRUE. is 1.
MPI_Fint logical(int flag) { return flag != 0 ? 1 : 0; }

// A C index (0-based, or MPI_UNDEFINED) as Fortran's.
MPI_Fint from_one(int index) { return index >= 0 ? index + 1 : index; }

const MPI_Comm world = MPI_COMM_WORLD;

// A constructor: MPICH's own procedure over the arguments (the program's
// ierror or one of its own), then the set-up of *newcomm.
template <class Own, class... Pointers>
void construct(Own own, const char* made_by, const void* newcomm, MPI_Fint* ierror,
               Pointers... arguments) {
  Ierror rc(ierror);
  own(arguments..., rc.at());
  mpix::intercept::set_up_after(rc.code(), static_cast<const MPI_Comm*>(newcomm), made_by);
}

}  // namespace

extern "C" {

// The constructors. Each forwards its arguments in order; the comment
// gives them.

// MPI_Init(ierror).
void mpi_init_f08_(MPI_Fint* ierror) {
  static const auto own = mpich_own<decltype(&mpi_init_f08_)>("mpi_init_f08_");
  construct(own, "MPI_Init", &world, ierror);
}

// MPI_Init_thread(required, provided, ierror).
void mpi_init_thread_f08_(void* a1, void* a2, MPI_Fint* ierror) {
  static const auto own = mpich_own<decltype(&mpi_init_thread_f08_)>("mpi_init_thread_f08_");
  construct(own, "MPI_Init_thread", &world, ierror, a1, a2);
}

// MPI_Comm_dup(comm, newcomm, ierror).
void mpi_comm_dup_f08_(void* a1, void* a2, MPI_Fint* ierror) {
  static const auto own = mpich_own<decltype(&mpi_comm_dup_f08_)>("mpi_comm_dup_f08_");
  construct(own, "MPI_Comm_dup", a2, ierror, a1, a2);
}

// MPI_Comm_dup_with_info(comm, info, newcomm, ierror).
void mpi_comm_dup_with_info_f08_(void* a1, void* a2, void* a3, MPI_Fint* ierror) {
  static const auto own = mpich_own<decltype(&mpi_comm_dup_with_info_f08_)>("mpi_comm_dup_with_info_f08_");
  construct(own, "MPI_Comm_dup_with_info", a3, ierror, a1, a2, a3);
}

// MPI_Comm_split(comm, color, key, newcomm, ierror).
void mpi_comm_split_f08_(void* a1, void* a2, void* a3, void* a4, MPI_Fint* ierror) {
  static const auto own = mpich_own<decltype(&mpi_comm_split_f08_)>("mpi_comm_split_f08_");
  construct(own, "MPI_Comm_split", a4, ierror, a1, a2, a3, a4);
}

// MPI_Comm_split_type(comm, split_type, key, info, newcomm, ierror).
void mpi_comm_split_type_f08_(void* a1, void* a2, void* a3, void* a4, void* a5, MPI_Fint* ierror) {
  static const auto own = mpich_own<decltype(&mpi_comm_split_type_f08_)>("mpi_comm_split_type_f08_");
  construct(own, "MPI_Comm_split_type", a5, ierror, a1, a2, a3, a4, a5);
}

// MPI_Comm_create(comm, group, newcomm, ierror).
void mpi_comm_create_f08_(void* a1, void* a2, void* a3, MPI_Fint* ierror) {
  static const auto own = mpich_own<decltype(&mpi_comm_create_f08_)>("mpi_comm_create_f08_");
  construct(own, "MPI_Comm_create", a3, ierror, a1, a2, a3);
}

// MPI_Comm_create_group(comm, group, tag, newcomm, ierror).
void mpi_comm_create_group_f08_(void* a1, void* a2, void* a3, void* a4, MPI_Fint* ierror) {
  static const auto own = mpich_own<decltype(&mpi_comm_create_group_f08_)>("mpi_comm_create_group_f08_");
  construct(own, "MPI_Comm_create_group", a4, ierror, a1, a2, a3, a4);
}

// MPI_Intercomm_merge(intercomm, high, newintracomm, ierror).
void mpi_intercomm_merge_f08_(void* a1, void* a2, void* a3, MPI_Fint* ierror) {
  static const auto own = mpich_own<decltype(&mpi_intercomm_merge_f08_)>("mpi_intercomm_merge_f08_");
  construct(own, "MPI_Intercomm_merge", a3, ierror, a1, a2, a3);
}

// MPI_Cart_create(comm_old, ndims, dims, periods, reorder, comm_cart, ierror).
void mpi_cart_create_f08_(void* a1, void* a2, void* a3, void* a4, void* a5, void* a6, MPI_Fint* ierror) {
  static const auto own = mpich_own<decltype(&mpi_cart_create_f08_)>("mpi_cart_create_f08_");
  construct(own, "MPI_Cart_create", a6, ierror, a1, a2, a3, a4, a5, a6);
}

// MPI_Cart_sub(comm, remain_dims, newcomm, ierror).
void mpi_cart_sub_f08_(void* a1, void* a2, void* a3, MPI_Fint* ierror) {
  static const auto own = mpich_own<decltype(&mpi_cart_sub_f08_)>("mpi_cart_sub_f08_");
  construct(own, "MPI_Cart_sub", a3, ierror, a1, a2, a3);
}

// MPI_Graph_create(comm_old, nnodes, index, edges, reorder, comm_graph,
// ierror).
void mpi_graph_create_f08_(void* a1, void* a2, void* a3, void* a4, void* a5, void* a6, MPI_Fint* ierror) {
  static const auto own = mpich_own<decltype(&mpi_graph_create_f08_)>("mpi_graph_create_f08_");
  construct(own, "MPI_Graph_create", a6, ierror, a1, a2, a3, a4, a5, a6);
}

// MPI_Dist_graph_create_adjacent(comm_old, indegree, sources, sourceweights,
// outdegree, destinations, destweights, info, reorder, comm_dist_graph,
// ierror).
void mpi_dist_graph_create_adjacent_f08_(void* a1, void* a2, void* a3, void* a4, void* a5, void* a6, void* a7,
                                         void* a8, void* a9, void* a10, MPI_Fint* ierror) {
  static const auto own =
      mpich_own<decltype(&mpi_dist_graph_create_adjacent_f08_)>("mpi_dist_graph_create_adjacent_f08_");
  construct(
      own, "MPI_Dist_graph_create_adjacent", a10, ierror, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10);
}

// MPI_Dist_graph_create(comm_old, n, sources, degrees, destinations,
// weights, info, reorder, comm_dist_graph, ierror).
void mpi_dist_graph_create_f08_(void* a1, void* a2, void* a3, void* a4, void* a5, void* a6, void* a7, void* a8,
                                void* a9, MPI_Fint* ierror) {
  static const auto own = mpich_own<decltype(&mpi_dist_graph_create_f08_)>("mpi_dist_graph_create_f08_");
  construct(own, "MPI_Dist_graph_create", a9, ierror,
                                                                            a1, a2, a3, a4, a5, a6, a7, a8, a9);
}

// The request calls.

void mpi_start_f08_(MPI_Request* request, MPI_Fint* ierror) { returned(ierror, MPI_Start(request)); }

void mpi_startall_f08_(MPI_Fint* count, MPI_Request* requests, MPI_Fint* ierror) {
  returned(ierror, MPI_Startall(*count, requests));
}

void mpi_wait_f08_(MPI_Request* request, MPI_Status* status, MPI_Fint* ierror) {
  returned(ierror, MPI_Wait(request, c_status(status)));
}

void mpi_test_f08_(MPI_Request* request, MPI_Fint* flag, MPI_Status* status, MPI_Fint* ierror) {
  int c_flag = 0;
  returned(ierror, MPI_Test(request, &c_flag, c_status(status)));
  *flag = logical(c_flag);
}

void mpi_request_get_status_f08_(MPI_Request* request, MPI_Fint* flag, MPI_Status* status, MPI_Fint* ierror) {
  int c_flag = 0;
  returned(ierror, MPI_Request_get_status(*request, &c_flag, c_status(status)));
  *flag = logical(c_flag);
}

void mpi_request_free_f08_(MPI_Request* request, MPI_Fint* ierror) { returned(ierror, MPI_Request_free(request)); }

void mpi_waitall_f08_(MPI_Fint* count, MPI_Request* requests, MPI_Status* statuses, MPI_Fint* ierror) {
  returned(ierror, MPI_Waitall(*count, requests, c_statuses(statuses)));
}

void mpi_testall_f08_(MPI_Fint* count, MPI_Request* requests, MPI_Fint* flag, MPI_Status* statuses,
                      MPI_Fint* ierror) {
  int c_flag = 0;
  returned(ierror, MPI_Testall(*count, requests, &c_flag, c_statuses(statuses)));
  *flag = logical(c_flag);
}

void mpi_waitany_f08_(MPI_Fint* count, MPI_Request* requests, MPI_Fint* index, MPI_Status* status,
                      MPI_Fint* ierror) {
  int c_index = MPI_UNDEFINED;
  returned(ierror, MPI_Waitany(*count, requests, &c_index, c_status(status)));
  *index = from_one(c_index);
}

void mpi_testany_f08_(MPI_Fint* count, MPI_Request* requests, MPI_Fint* index, MPI_Fint* flag, MPI_Status* status,
                      MPI_Fint* ierror) {
  int c_index = MPI_UNDEFINED, c_flag = 0;
  returned(ierror, MPI_Testany(*count, requests, &c_index, &c_flag, c_status(status)));
  *index = from_one(c_index);
  *flag = logical(c_flag);
}

// MPI_Waitsome and MPI_Testsome: indices, outcount of them, from 1.
void mpi_waitsome_f08_(MPI_Fint* incount, MPI_Request* requests, MPI_Fint* outcount, MPI_Fint* indices,
                       MPI_Status* statuses, MPI_Fint* ierror) {
  returned(ierror, MPI_Waitsome(*incount, requests, outcount, indices, c_statuses(statuses)));
  for (int k = 0; k < *outcount; ++k) indices[k] = from_one(indices[k]);
}

void mpi_testsome_f08_(MPI_Fint* incount, MPI_Request* requests, MPI_Fint* outcount, MPI_Fint* indices,
                       MPI_Status* statuses, MPI_Fint* ierror) {
  returned(ierror, MPI_Testsome(*incount, requests, outcount, indices, c_statuses(statuses)));
  for (int k = 0; k < *outcount; ++k) indices[k] = from_one(indices[k]);
}

}  // extern "C"

#endif  // MPI_VERSION >= 4
