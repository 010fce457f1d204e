/*
 * The library's own definition of an entry point whose name the MPI
 * defines too. Open MPI's libmpi exports weak MPIX_Alltoall_init,
 * MPIX_Alltoallv_init and MPIX_Neighbor_alltoallv_init of its own (its
 * persistent-collective extension, other signatures). A binding loaded
 * after libmpi was made global (mpi4py loads it so; a Fortran program may
 * link it first) would bind those names to Open MPI's. So the bindings call
 * them through the address libmpixrma itself gives for the name: dlsym on
 * libmpixrma's handle searches libmpixrma before its dependencies.
 */
#ifndef MPIX_BINDINGS_LIBRARY_ENTRY_H
#define MPIX_BINDINGS_LIBRARY_ENTRY_H

#include <dlfcn.h>
#include <mpix/mpix.h>

/* NULL if libmpixrma cannot be found (it is loaded: this file's caller
 * links it). */
static inline void *mpixrma_entry(const char *name) {
    Dl_info info;
    /* MPIX_Comm_init is libmpixrma's alone: where it lives is the library. */
    if (dladdr((void *)&MPIX_Comm_init, &info) == 0 || info.dli_fname == NULL) return NULL;
    void *library = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    if (library == NULL) return NULL;
    void *entry = dlsym(library, name);
    dlclose(library); /* balances the RTLD_NOLOAD open; the library stays loaded */
    return entry;
}

/* The shapes of the three: the two vector families' inits and Alltoall's. */
typedef int (*mpixrma_vector_init)(const void *, const int[], const int[], MPI_Datatype, void *, const int[],
                                   const int[], MPI_Datatype, MPIX_Comm *, MPIX_Info *, MPIX_Request **);
typedef int (*mpixrma_alltoall_init)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPIX_Comm *,
                                     MPIX_Info *, MPIX_Request **);

#endif
