"""mpix-rma for Python: persistent all-to-all exchanges for mpi4py codes.

    from mpi4py import MPI
    import mpixrma
    req = mpixrma.Alltoallv_init([sbuf, (scounts, sdispls), MPI.DOUBLE],
                                 [rbuf, (rcounts, rdispls), MPI.DOUBLE], comm=MPI.COMM_WORLD)
    req.Start(); req.Wait(); print(req.algorithm); req.Free()

Buffer specifications and method names follow mpi4py's own: a buffer is
any object with the buffer protocol (a NumPy array, say), alone (its
datatype from its element type) or as [buf, datatype], [buf, count,
datatype] (Alltoall: elements per rank) or [buf, (counts, displacements),
datatype] (the vector families; displacements may be None: packed).
MPI.IN_PLACE is the send buffer of an exchange in place. Requests are
context managers that free themselves. `comm` is an mpi4py communicator
(the request then owns a library communicator of its own) or an
mpixrma.Comm, which several requests may share. Every call is the C API's
(`man MPIX_Alltoallv_init`); errors raise mpixrma.Error, whose error_code
is the MPI error code.

The request keeps its buffers (their memory is pinned while it lives):
free it with Free() or a `with` block, on every rank in the same order, as
MPI's collective frees. What a program leaves is freed when MPI_Finalize
starts.
"""
from mpi4py import MPI

from ._mpixrma import Comm as _Comm, Error, Request, _algorithms, _alltoall_init, _vector_init

__all__ = ["Comm", "Error", "Request", "Alltoallv_init", "Alltoall_init", "Neighbor_alltoallv_init",
           "algorithms"]


class Comm(_Comm):
    """The library's communicator over an mpi4py communicator
    (MPIX_Comm_init; collective). Free() frees it (collective)."""

    def __init__(self, comm=MPI.COMM_WORLD):
        super().__init__(MPI._handleof(comm))
        self.mpi_comm = comm


def algorithms(family="alltoallv"):
    """The registered algorithms of a family (alltoallv, alltoall,
    neighbor_alltoallv), in mpix_info's order: (name, description,
    capability bits) each."""
    return _algorithms(family)


def _datatype(buffer):
    """The MPI datatype of a buffer's elements, as mpi4py infers it."""
    code = memoryview(buffer).format.lstrip("@=<>!")
    try:
        return MPI._typedict[code]
    except KeyError:
        raise TypeError(f"no MPI datatype for buffer elements of format '{code}': give the datatype") from None


def _vector_spec(spec, what):
    """(buffer, counts, displacements, datatype) from [buf, (counts, displs), datatype]."""
    if spec is MPI.IN_PLACE:
        return None, None, None, None
    if not isinstance(spec, (list, tuple)) or len(spec) not in (2, 3) or not isinstance(spec[1], (list, tuple)):
        raise TypeError(f"{what}: a vector buffer is [buf, (counts, displacements), datatype]")
    buffer, (counts, displs) = spec[0], spec[1]
    datatype = spec[2] if len(spec) == 3 else _datatype(buffer)
    counts = [int(c) for c in counts]
    if displs is None:
        displs, offset = [], 0
        for c in counts:
            displs.append(offset)
            offset += c
    return buffer, counts, [int(d) for d in displs], datatype


def _block_spec(spec, ranks, what):
    """(buffer, count, datatype) from buf, [buf, datatype] or [buf, count, datatype]."""
    if spec is MPI.IN_PLACE:
        return None, 0, MPI.DATATYPE_NULL
    if isinstance(spec, (list, tuple)):
        if len(spec) == 3:
            return spec[0], int(spec[1]), spec[2]
        if len(spec) == 2:
            buffer, datatype = spec
        else:
            raise TypeError(f"{what}: a buffer is buf, [buf, datatype] or [buf, count, datatype]")
    else:
        buffer, datatype = spec, _datatype(spec)
    extent = datatype.Get_extent()[1]
    return buffer, memoryview(buffer).nbytes // max(extent, 1) // max(ranks, 1), datatype


def _library_comm(comm):
    """(the library's communicator, whether it was made for one request)."""
    return (comm, False) if isinstance(comm, _Comm) else (Comm(comm), True)


def _made(request, own_comm):
    if own_comm:
        request._own_comm()
    return request


def _info(info):
    return None if info is None else {str(k): str(v) for k, v in dict(info).items()}


def Alltoallv_init(sendbuf, recvbuf, comm=MPI.COMM_WORLD, info=None):
    """A persistent MPI_Alltoallv (MPIX_Alltoallv_init; collective)."""
    send, scounts, sdispls, stype = _vector_spec(sendbuf, "sendbuf")
    recv, rcounts, rdispls, rtype = _vector_spec(recvbuf, "recvbuf")
    if send is None:
        scounts, sdispls, stype = rcounts, rdispls, rtype
    xcomm, own = _library_comm(comm)
    return _made(_vector_init("alltoallv", send, scounts, sdispls, MPI._handleof(stype), recv, rcounts, rdispls,
                              MPI._handleof(rtype), xcomm, _info(info)), own)


def Neighbor_alltoallv_init(sendbuf, recvbuf, comm, info=None):
    """A persistent MPI_Neighbor_alltoallv on a distributed-graph
    communicator (MPIX_Neighbor_alltoallv_init; collective): counts and
    displacements per edge, in MPI_Dist_graph_neighbors' order."""
    send, scounts, sdispls, stype = _vector_spec(sendbuf, "sendbuf")
    recv, rcounts, rdispls, rtype = _vector_spec(recvbuf, "recvbuf")
    if send is None:
        raise ValueError("sendbuf: MPI_IN_PLACE is not allowed for a neighbourhood exchange")
    xcomm, own = _library_comm(comm)
    return _made(_vector_init("neighbor_alltoallv", send, scounts, sdispls, MPI._handleof(stype), recv, rcounts,
                              rdispls, MPI._handleof(rtype), xcomm, _info(info)), own)


def Alltoall_init(sendbuf, recvbuf, comm=MPI.COMM_WORLD, info=None):
    """A persistent MPI_Alltoall (MPIX_Alltoall_init; collective)."""
    ranks = (comm.mpi_comm if isinstance(comm, Comm) else comm).Get_size()
    send, scount, stype = _block_spec(sendbuf, ranks, "sendbuf")
    recv, rcount, rtype = _block_spec(recvbuf, ranks, "recvbuf")
    xcomm, own = _library_comm(comm)
    return _made(_alltoall_init(send, scount, MPI._handleof(stype), recv, rcount, MPI._handleof(rtype), xcomm,
                                _info(info)), own)
