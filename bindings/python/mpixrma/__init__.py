"""mpix-rma for Python: persistent all-to-all exchanges for mpi4py codes.

    from mpi4py import MPI
    import mpixrma
    xcomm = mpixrma.Comm(MPI.COMM_WORLD)
    req = xcomm.Alltoallv_init([sbuf, (scounts, sdispls), MPI.DOUBLE],
                               [rbuf, (rcounts, rdispls), MPI.DOUBLE])
    req.Start(); req.Wait(); print(req.algorithm); req.Free(); xcomm.Free()

Buffer specifications and method names follow mpi4py's own: the inits are
methods of a communicator (mpixrma.Comm over an mpi4py one, which several
requests share), as mpi4py's persistent collectives are. A buffer is any
object with the buffer protocol (a NumPy array, say), alone (its datatype
from its element type) or as [buf, datatype], [buf, count, datatype]
(Alltoall: elements per rank) or [buf, (counts, displacements), datatype]
(the vector families; displacements may be None: packed); a datatype may
be an MPI.Datatype or a type letter ('d', 'i', ...), as in mpi4py.
MPI.IN_PLACE is the send buffer of an exchange in place. Requests are
context managers that free themselves; Wait and Test take an optional
MPI.Status, set empty as for MPI's persistent collectives. The module
functions Alltoallv_init(sendbuf, recvbuf, comm), ... take the
communicator as an argument, with no default: an mpi4py communicator (the
request then owns a library communicator of its own) or an mpixrma.Comm. Every call is the C API's
(`man MPIX_Alltoallv_init`); errors raise mpixrma.Error, whose error_code
is the MPI error code.

Every init checks what it is given before anything reaches the library:
the number of counts and displacements (the communicator's size, or the
graph's degrees), every block inside its buffer with the datatype's
extent, contiguous buffers, a writable receive buffer, and a predefined
datatype whose size matches the buffer's elements. A failed check raises
ValueError or TypeError on every rank of the call (collective, as the
init), naming the argument and the rank; no byte outside the buffers is
touched.

The request keeps its buffers (their memory is pinned while it lives):
free it with Free() or a `with` block, on every rank in the same order, as
MPI's collective frees. What a program leaves is freed when MPI_Finalize
starts.
"""
from mpi4py import MPI

from ._mpixrma import Comm as _Comm, Error, Request, _algorithms, _families, _init

# Every family's inits (the module's <Name>_init functions and Comm's
# methods) are made at import from the families table the compiled half
# reads (collectives/families.def): see _family_init at the end.
__all__ = ["Comm", "Error", "Request", "algorithms"]


class Comm(_Comm):
    """The library's communicator over an mpi4py communicator
    (MPIX_Comm_init; collective). Free() frees it (collective)."""

    def __init__(self, comm):
        if not isinstance(comm, MPI.Comm):
            raise TypeError("comm: an mpi4py communicator (MPI.Comm)")
        super().__init__(comm.py2f())
        self.mpi_comm = comm


def algorithms(family="alltoallv"):
    """The registered algorithms of a family (its folder: alltoallv,
    alltoall, ...; families() lists them), in mpix_info's order: (name,
    description, capability bits) each."""
    return _algorithms(family)


# The MPI datatype of each buffer format letter (the struct module's, which
# NumPy's buffers give, and mpi4py's type letters): mpi4py's own table is
# private.
_TYPECODES = {
    "?": MPI.C_BOOL, "c": MPI.CHAR, "b": MPI.SIGNED_CHAR, "B": MPI.UNSIGNED_CHAR,
    "h": MPI.SHORT, "H": MPI.UNSIGNED_SHORT, "i": MPI.INT, "I": MPI.UNSIGNED,
    "l": MPI.LONG, "L": MPI.UNSIGNED_LONG, "q": MPI.LONG_LONG, "Q": MPI.UNSIGNED_LONG_LONG,
    "f": MPI.FLOAT, "d": MPI.DOUBLE, "g": MPI.LONG_DOUBLE,
    "Zf": MPI.C_FLOAT_COMPLEX, "Zd": MPI.C_DOUBLE_COMPLEX, "Zg": MPI.C_LONG_DOUBLE_COMPLEX,
    "F": MPI.C_FLOAT_COMPLEX, "D": MPI.C_DOUBLE_COMPLEX, "G": MPI.C_LONG_DOUBLE_COMPLEX,
}


def _datatype(buffer):
    """The MPI datatype of a buffer's elements, as mpi4py infers it."""
    code = memoryview(buffer).format.lstrip("@=<>!")
    try:
        return _TYPECODES[code]
    except KeyError:
        raise TypeError(f"no MPI datatype for buffer elements of format '{code}': give the datatype") from None


def _as_datatype(datatype, what):
    """An MPI.Datatype, or the one a type letter ('d', 'i', ...) names."""
    if isinstance(datatype, str):
        try:
            return _TYPECODES[datatype]
        except KeyError:
            raise TypeError(f"{what}: '{datatype}' is not a type letter (one of {''.join(_TYPECODES)})") from None
    return datatype


def _vector_spec(spec, what):
    """(buffer, counts, displacements, datatype) from [buf, (counts, displs), datatype]."""
    if spec is MPI.IN_PLACE:
        return None, None, None, None
    if not isinstance(spec, (list, tuple)) or len(spec) not in (2, 3) or not isinstance(spec[1], (list, tuple)):
        raise TypeError(f"{what}: a vector buffer is [buf, (counts, displacements), datatype]")
    buffer, (counts, displs) = spec[0], spec[1]
    datatype = _as_datatype(spec[2], what) if len(spec) == 3 else _datatype(buffer)
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
            return spec[0], int(spec[1]), _as_datatype(spec[2], what)
        if len(spec) == 2:
            buffer, datatype = spec[0], _as_datatype(spec[1], what)
        else:
            raise TypeError(f"{what}: a buffer is buf, [buf, datatype] or [buf, count, datatype]")
    else:
        buffer, datatype = spec, _datatype(spec)
    extent = datatype.Get_extent()[1]
    return buffer, memoryview(buffer).nbytes // max(extent, 1) // max(ranks, 1), datatype


def _library_comm(comm):
    """(the library's communicator, whether it was made for one request)."""
    return (comm, False) if isinstance(comm, _Comm) else (Comm(comm), True)


def _mpi_comm(comm):
    """The mpi4py communicator under comm (an mpixrma.Comm or mpi4py's)."""
    return comm.mpi_comm if isinstance(comm, _Comm) else comm


def _bytes_of(buffer, what, writable):
    """The size in bytes of a contiguous buffer; TypeError or ValueError if
    it is not one the library may use."""
    try:
        view = memoryview(buffer)
    except TypeError:
        raise TypeError(f"{what}: not a buffer (it must support the buffer protocol)") from None
    if not view.contiguous:
        raise ValueError(f"{what}: the buffer is not contiguous")
    if writable and view.readonly:
        raise ValueError(f"{what}: the buffer is read-only")
    return view.nbytes, view.itemsize, view.format.lstrip("@=<>!")


def _check_datatype(datatype, itemsize, code, what):
    """A predefined datatype must match the size of the buffer's elements
    (MPI.BYTE and MPI.PACKED match any)."""
    if not isinstance(datatype, MPI.Datatype) or datatype == MPI.DATATYPE_NULL:
        raise TypeError(f"{what}: the datatype is not an MPI datatype")
    if datatype in (MPI.BYTE, MPI.PACKED) or not datatype.is_predefined or code not in _TYPECODES:
        return
    if datatype.Get_size() != itemsize:
        raise TypeError(f"{what}: {datatype.Get_name() or 'the datatype'} ({datatype.Get_size()} bytes) does not "
                        f"match the buffer's elements ('{code}', {itemsize} bytes)")


def _check_blocks(buffer, counts, displs, datatype, ranks, what, writable):
    """Every block of counts[i] elements at displs[i] (in extents) inside
    the buffer: ranks counts and displacements, none reaching outside."""
    nbytes, itemsize, code = _bytes_of(buffer, what, writable)
    _check_datatype(datatype, itemsize, code, what)
    for name, values in (("counts", counts), ("displacements", displs)):
        if len(values) != ranks:
            raise ValueError(f"{what}: {len(values)} {name} given, {ranks} needed")
    lb, extent = datatype.Get_extent()
    true_lb, true_extent = datatype.Get_true_extent()
    for i, (count, displ) in enumerate(zip(counts, displs)):
        if count <= 0:
            continue  # a negative count is the library's to refuse, on every rank
        first = displ * extent + true_lb
        end = displ * extent + (count - 1) * extent + true_lb + true_extent
        if first < 0 or end > nbytes:
            raise ValueError(f"{what}: block {i} ({count} elements at displacement {displ}) spans bytes "
                             f"[{first}, {end}) of a {nbytes}-byte buffer")


def _agreed(comm, parse):
    """parse() on every rank of the init's communicator: its result, or on
    every rank the exception it raised on the lowest failing one."""
    result, failure = None, None
    try:
        result = parse()
    except (TypeError, AttributeError) as e:
        failure = ("TypeError", str(e))
    except (ValueError, OverflowError, BufferError) as e:
        failure = ("ValueError", str(e))
    failures = _mpi_comm(comm).allgather(failure)
    for r, f in enumerate(failures):
        if f is not None:
            kind = TypeError if f[0] == "TypeError" else ValueError
            raise kind(f"on rank {r}: {f[1]}")
    return result


def _made(request, own_comm):
    if own_comm:
        request._own_comm()
    return request


def _info(info):
    return None if info is None else {str(k): str(v) for k, v in dict(info).items()}


def _vector_specs(sendbuf, recvbuf, sends_to, receives_from, in_place):
    """The send and receive (buffer, counts, displacements, datatype) of a
    vector init, checked; the receive side's for an exchange in place."""
    send = _vector_spec(sendbuf, "sendbuf")
    recv = _vector_spec(recvbuf, "recvbuf")
    if send[0] is None:
        if not in_place:
            raise ValueError("sendbuf: MPI_IN_PLACE is not allowed for a neighbourhood exchange")
        send = (None,) + recv[1:]
    else:
        _check_blocks(*send, sends_to, "sendbuf", False)
    _check_blocks(*recv, receives_from, "recvbuf", True)
    return send, recv


def families():
    """Every family's folder (what algorithms() takes), in the table's order."""
    return [folder for folder, _, _ in _families()]


def _family_init(folder, name, parameters):
    """The module function <name>_init(sendbuf, recvbuf, comm, info=None)
    of a family: its buffer specifications parsed and checked on every
    rank, then its C init over the values, by the parameters' names.

    The parameters before the receive buffer are the send side's, the
    rest the receive side's: four (buffer, counts, displacements,
    datatype) make a vector specification, three (buffer, count,
    datatype) a block one, each block for one peer. A neighbourhood
    family (MPI's Neighbor_ prefix) has a distributed graph's peers and
    no exchange in place; any other, the communicator's ranks. None for a
    family whose parameters fit neither specification: the package still
    imports, and the test of every family's inits fails for it."""
    half = len(parameters) // 2
    sides = parameters[:half], parameters[half:]
    if len(parameters) % 2 or any(len(side) not in (3, 4) for side in sides):
        return None  # no specification fits: the family has no Python init yet (a test says so)
    vector = half == 4
    neighbourhood = name.startswith("Neighbor_")

    def parse(sendbuf, recvbuf, comm):
        mpi = _mpi_comm(comm)
        if neighbourhood:
            if mpi.Get_topology() != MPI.DIST_GRAPH:
                raise TypeError("comm: a neighbourhood exchange needs a distributed-graph communicator")
            receives_from, sends_to, _ = mpi.Get_dist_neighbors_count()
        else:
            sends_to = receives_from = mpi.Get_size()
        if vector:
            send, recv = _vector_specs(sendbuf, recvbuf, sends_to, receives_from, not neighbourhood)
        else:
            send, recv = _block_specs(sendbuf, recvbuf, sends_to, receives_from)
        values = send[:-1] + (send[-1].py2f(),) + recv[:-1] + (recv[-1].py2f(),)
        return values

    def init(sendbuf, recvbuf, comm, info=None):
        values = _agreed(comm, lambda: parse(sendbuf, recvbuf, comm))
        xcomm, own = _library_comm(comm)
        return _made(_init(folder, values, xcomm, _info(info)), own)

    what = f"A persistent MPI_{name} (MPIX_{name}_init; collective)"
    if neighbourhood:
        what += " on a distributed-graph communicator: counts and displacements per edge, in " \
                "MPI_Dist_graph_neighbors' order"
    init.__name__ = init.__qualname__ = f"{name}_init"
    init.__doc__ = what + "."

    def method(self, sendbuf, recvbuf, info=None):
        return init(sendbuf, recvbuf, self, info)
    method.__name__ = init.__name__
    method.__qualname__ = f"Comm.{name}_init"
    method.__doc__ = what + ", on this communicator."
    return init, method


def _block_specs(sendbuf, recvbuf, sends_to, receives_from):
    """The send and receive (buffer, count, datatype) of a block init,
    checked to hold a block per peer."""
    send = _block_spec(sendbuf, sends_to, "sendbuf")
    recv = _block_spec(recvbuf, receives_from, "recvbuf")
    for (buffer, count, datatype), peers, what, writable in ((send, sends_to, "sendbuf", False),
                                                            (recv, receives_from, "recvbuf", True)):
        if buffer is not None:
            _check_blocks(buffer, [count] * peers, [count * r for r in range(peers)], datatype, peers, what,
                          writable)
    return send, recv


def _add_family_inits():
    """Every family's <Name>_init, as a module function and a Comm method."""
    for folder, name, parameters in _families():
        made = _family_init(folder, name, tuple(p.strip() for p in parameters.strip("()").split(",")))
        if made is not None:
            function, method = made
            globals()[function.__name__] = function
            setattr(Comm, method.__name__, method)
            __all__.append(function.__name__)


_add_family_inits()
__all__.append("families")
