"""The Python package against mpi4py's own calls, under mpiexec (every rank
runs the same tests in the same order, and asserts only after its
collective calls). tests/python/run.sh runs it on the installed package."""
import faulthandler
import gc
import os
import re
import weakref

import numpy as np
import pytest
from mpi4py import MPI

import mpixrma

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()


@pytest.fixture(autouse=True)
def stall_ends_the_job():
    """A test still running after 20 s has lost a rank to a collective the
    others left: print where each rank is and end the process (mpiexec
    then ends the job), rather than wait for CTest's limit."""
    faulthandler.dump_traceback_later(20, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


def uneven_layout():
    """Rank r sends r + 2d + 1 elements to rank d: send and receive layouts differ."""
    scounts = [rank + 2 * d + 1 for d in range(size)]
    rcounts = [s + 2 * rank + 1 for s in range(size)]
    return scounts, list(np.cumsum([0] + scounts[:-1])), rcounts, list(np.cumsum([0] + rcounts[:-1]))


@pytest.mark.parametrize("dtype,mpitype", [(np.float64, MPI.DOUBLE), (np.int32, MPI.INT)])
def test_alltoallv_equals_mpi4py(dtype, mpitype):
    scounts, sdispls, rcounts, rdispls = uneven_layout()
    send, recv = np.zeros(sum(scounts), dtype), np.zeros(sum(rcounts), dtype)
    expected = np.zeros_like(recv)
    results = []
    with mpixrma.Alltoallv_init([send, (scounts, sdispls), mpitype], [recv, (rcounts, rdispls), mpitype],
                                comm) as req:
        for it in range(3):
            send[:] = np.arange(send.size) + 1000 * rank + 10 * it
            req.Start()
            req.Wait()
            comm.Alltoallv([send, (scounts, sdispls), mpitype], [expected, (rcounts, rdispls), mpitype])
            results.append(np.array_equal(recv, expected))
        algorithm = req.algorithm
    assert all(results), "data differs from comm.Alltoallv"
    assert algorithm


@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_alltoall_equals_mpi4py(dtype):
    send, recv = np.zeros(3 * size, dtype), np.zeros(3 * size, dtype)
    expected = np.zeros_like(recv)
    results = []
    xcomm = mpixrma.Comm(comm)
    with mpixrma.Alltoall_init(send, recv, comm=xcomm) as req:
        for it in range(3):
            send[:] = np.arange(send.size) + 100 * rank + 7 * it
            req.Start()
            while not req.Test():
                pass
            comm.Alltoall(send, expected)
            results.append(np.array_equal(recv, expected))
    xcomm.Free()
    assert all(results), "data differs from comm.Alltoall"


def test_neighbor_alltoallv_equals_mpi4py():
    ring = [(rank - 1) % size, (rank + 1) % size]
    graph = comm.Create_dist_graph_adjacent(ring, ring)
    send, recv, expected = np.zeros(4), np.zeros(4), np.zeros(4)
    results = []
    with mpixrma.Neighbor_alltoallv_init([send, ([2, 2], [0, 2]), MPI.DOUBLE],
                                         [recv, ([2, 2], [2, 0]), MPI.DOUBLE], comm=graph) as req:
        for it in range(3):
            send[:] = np.arange(4) + 10 * rank + it
            req.Start()
            req.Wait()
            graph.Neighbor_alltoallv([send, ([2, 2], [0, 2]), MPI.DOUBLE], [expected, ([2, 2], [2, 0]), MPI.DOUBLE])
            results.append(np.array_equal(recv, expected))
    graph.Free()
    assert all(results), "data differs from Neighbor_alltoallv"


def test_inits_are_methods_of_a_communicator_with_type_letters_and_statuses():
    """As mpi4py's persistent collectives: methods of the communicator,
    a type letter for a datatype, and Wait/Test filling an MPI.Status
    (empty, as for a persistent collective)."""
    xcomm = mpixrma.Comm(comm)
    send, recv = np.zeros(2 * size), np.zeros(2 * size)
    vrecv, expected = np.zeros(2 * size), np.zeros(2 * size)
    counts, displs = even(2)
    results = []
    with xcomm.Alltoall_init([send, 2, "d"], [recv, "d"]) as uniform, \
            xcomm.Alltoallv_init([send, (counts, displs), "d"], [vrecv, (counts, displs), MPI.DOUBLE]) as vector:
        for it in range(3):
            send[:] = np.arange(send.size) + 100 * rank + it
            status, vstatus = MPI.Status(), MPI.Status()
            status.Set_source(rank + 5)
            vstatus.Set_tag(7)
            uniform.Start()
            vector.Start()
            uniform.Wait(status)
            while not vector.Test(status=vstatus):
                pass
            comm.Alltoall(send, expected)
            results.append(np.array_equal(recv, expected) and np.array_equal(vrecv, expected))
            results.append(status.Get_source() == MPI.ANY_SOURCE and vstatus.Get_tag() == MPI.ANY_TAG)
    xcomm.Free()
    assert all(results), "data differs from comm.Alltoall, or a status was not set empty"
    with pytest.raises(TypeError):
        mpixrma.Alltoall_init(send, recv)  # the communicator is not optional
    with pytest.raises(TypeError):
        mpixrma.Alltoall_init([send, "not a letter"], recv, comm)


def table_rows():
    """(folder, name) of every row of collectives/families.def, read here
    from the source: what the package must offer without a line of its own."""
    path = os.path.join(os.path.dirname(__file__), "..", "..", "collectives", "families.def")
    with open(path) as table:
        return re.findall(r"^MPIX_FAMILY\((\w+), *(\w+),", table.read(), re.M)


def test_every_family_of_the_table_has_its_inits():
    rows = table_rows()
    assert rows and mpixrma.families() == [folder for folder, _ in rows]
    for folder, name in rows:
        assert callable(getattr(mpixrma, f"{name}_init")) and f"{name}_init" in mpixrma.__all__, folder
        assert callable(getattr(mpixrma.Comm, f"{name}_init")), folder
        assert f"MPIX_{name}_init" in getattr(mpixrma, f"{name}_init").__doc__


@pytest.mark.parametrize("family", [folder for folder, _ in table_rows()])
def test_algorithms_list_the_registry(family):
    names = [name for name, description, capabilities in mpixrma.algorithms(family)]
    assert "auto" in names and "native" in names
    assert all(description for _, description, _ in mpixrma.algorithms(family))


def test_every_alltoallv_algorithm():
    scounts, sdispls, rcounts, rdispls = uneven_layout()
    send = np.arange(sum(scounts), dtype=np.float64) + 1000 * rank
    expected = np.zeros(sum(rcounts))
    comm.Alltoallv([send, (scounts, sdispls), MPI.DOUBLE], [expected, (rcounts, rdispls), MPI.DOUBLE])
    wrong = []
    for name, _, _ in mpixrma.algorithms("alltoallv"):
        recv = np.zeros(sum(rcounts))
        with mpixrma.Alltoallv_init([send, (scounts, sdispls), MPI.DOUBLE], [recv, (rcounts, rdispls), MPI.DOUBLE],
                                    info={"mpix_alltoallv_algorithm": name}, comm=comm) as req:
            for _ in range(2):
                req.Start()
                req.Wait()
        if not np.array_equal(recv, expected):
            wrong.append(name)
    assert not wrong, f"wrong data from {wrong}"


def test_moving_buffers_need_the_info_key():
    send, recv = np.arange(size, dtype=np.float64), np.zeros(size)
    with mpixrma.Alltoall_init(send, recv, info={"mpix_buffers_move": "true"}, comm=comm) as req:
        results = []
        for it in range(3):
            other_send = np.arange(size, dtype=np.float64) + 100 * rank + it
            other_recv, expected = np.zeros(size), np.zeros(size)
            req.Start_with_buffers(other_send, other_recv)
            req.Wait()
            comm.Alltoall(other_send, expected)
            results.append(np.array_equal(other_recv, expected))
        with pytest.raises(ValueError):
            req.Start_with_buffers(np.zeros(size + 1), np.zeros(size))
    assert all(results)
    with mpixrma.Alltoall_init(send, recv, comm=comm) as req:
        with pytest.raises(mpixrma.Error) as refused:
            req.Start_with_buffers(np.zeros(size), np.zeros(size))
    assert MPI.Get_error_class(refused.value.error_code) == MPI.ERR_REQUEST


def test_a_request_keeps_its_buffers():
    send, recv = np.ones(size), np.zeros(size)
    kept = weakref.ref(recv)
    req = mpixrma.Alltoall_init(send, recv, comm=comm)
    del send, recv
    gc.collect()
    alive_while_requested = kept() is not None
    req.Start()
    req.Wait()
    data = kept().copy() if kept() is not None else None
    req.Free()
    gc.collect()
    assert alive_while_requested and data is not None and np.all(data == 1.0)
    assert kept() is None


def test_a_bad_argument_fails_on_every_rank():
    send, recv = np.zeros(size), np.zeros(size)
    counts = [1] * size
    if rank == size - 1:
        counts[0] = -1
    with pytest.raises(mpixrma.Error) as failed:
        mpixrma.Alltoallv_init([send, (counts, list(range(size))), MPI.DOUBLE],
                               [recv, ([1] * size, list(range(size))), MPI.DOUBLE], comm=comm)
    assert "count" in str(failed.value).lower()


# ---- Hostile arguments: each raises on every rank, nothing outside the buffers changes.

guard = 16  # elements of the parent array on each side of a buffer view


def viewed(n, dtype=np.float64):
    """A view of n elements inside a larger array whose margins must stay as they are."""
    parent = np.full(n + 2 * guard, -7, dtype)
    return parent, parent[guard:guard + n]


def margins_intact(*parents):
    return all(np.all(p[:guard] == -7) and np.all(p[-guard:] == -7) for p in parents)


def even(n_per_rank):
    return [n_per_rank] * size, [n_per_rank * r for r in range(size)]


def ring_graph():
    ring = [(rank - 1) % size, (rank + 1) % size]
    return comm.Create_dist_graph_adjacent(ring, ring)


def alltoallv(scounts=None, sdispls=None, rcounts=None, rdispls=None, send=None, recv=None, stype=MPI.DOUBLE,
              rtype=MPI.DOUBLE):
    c, d = even(2)
    return mpixrma.Alltoallv_init([send, (scounts or c, sdispls or d), stype],
                                  [recv, (rcounts or c, rdispls or d), rtype], comm)


def resized_double():
    """A datatype of one double with an extent of two: the last block reaches one double further."""
    return MPI.DOUBLE.Create_resized(0, 16).Commit()


# name -> (exception, call(send view, recv view) making the init); buffers of 2 doubles per rank.
hostile = {
    "sendcounts short": (ValueError, lambda s, r: alltoallv(scounts=[2] * (size - 1), send=s, recv=r)),
    "sendcounts empty": (ValueError, lambda s, r: mpixrma.Alltoallv_init([s, ([], []), MPI.DOUBLE],
                                                                         [r, even(2), MPI.DOUBLE], comm=comm)),
    "sdispls short": (ValueError, lambda s, r: alltoallv(sdispls=list(range(0, 2 * size - 2, 2)), send=s, recv=r)),
    "recvcounts short": (ValueError, lambda s, r: alltoallv(rcounts=[2] * (size - 1), send=s, recv=r)),
    "rdispls empty": (ValueError, lambda s, r: mpixrma.Alltoallv_init([s, even(2), MPI.DOUBLE],
                                                                      [r, ([2] * size, []), MPI.DOUBLE], comm=comm)),
    "sendcounts long": (ValueError, lambda s, r: alltoallv(scounts=[1] * (size + 1), send=s, recv=r)),
    "send count past the end": (ValueError, lambda s, r: alltoallv(scounts=[2] * (size - 1) + [3], send=s, recv=r)),
    "send displacement past the end": (ValueError, lambda s, r: alltoallv(
        sdispls=[2 * i for i in range(size - 1)] + [2 * size], send=s, recv=r)),
    "recv count past the view": (ValueError, lambda s, r: alltoallv(rcounts=[2] * (size - 1) + [4], send=s, recv=r)),
    "recv displacement past the view": (ValueError, lambda s, r: alltoallv(
        rdispls=[2 * i for i in range(size - 1)] + [2 * size - 1], send=s, recv=r)),
    "negative recv displacement": (ValueError, lambda s, r: alltoallv(rdispls=[-1] + [2 * i for i in range(1, size)],
                                                                      send=s, recv=r)),
    "past the view on the last rank only": (ValueError, lambda s, r: alltoallv(
        rcounts=[2] * (size - 1) + [3 if rank == size - 1 else 2], send=s, recv=r)),
    "int datatype for doubles": (TypeError, lambda s, r: alltoallv(send=s, recv=r, stype=MPI.INT)),
    "double datatype for bytes": (TypeError, lambda s, r: alltoallv(send=s.view(np.int8), recv=r)),
    "not a datatype": (TypeError, lambda s, r: alltoallv(send=s, recv=r, rtype=None)),
    "non-contiguous send": (ValueError, lambda s, r: alltoallv(send=np.zeros(4 * size)[::2], recv=r)),
    "non-contiguous recv": (ValueError, lambda s, r: alltoallv(send=s, recv=np.zeros(4 * size)[::2])),
    "read-only recv": (ValueError, lambda s, r: alltoallv(send=s, recv=np.frombuffer(bytes(16 * size)))),
    "recv not a buffer": (TypeError, lambda s, r: alltoallv(send=s, recv=[0.0] * (2 * size))),
    "derived type past the view": (ValueError, lambda s, r: mpixrma.Alltoallv_init(
        [s, even(2), MPI.DOUBLE], [r, even(1), MPI.DOUBLE.Create_contiguous(3).Commit()], comm=comm)),
    "resized type past the view": (ValueError, lambda s, r: mpixrma.Alltoallv_init(
        [s, even(2), MPI.DOUBLE], [r, ([2] * size, list(range(size))), resized_double()], comm=comm)),
    "alltoall send count too large": (ValueError, lambda s, r: mpixrma.Alltoall_init([s, 3, MPI.DOUBLE],
                                                                                     [r, 2, MPI.DOUBLE], comm=comm)),
    "alltoall recv count too large": (ValueError, lambda s, r: mpixrma.Alltoall_init([s, 2, MPI.DOUBLE],
                                                                                     [r, 3, MPI.DOUBLE], comm=comm)),
    "alltoall recv count on one rank": (ValueError, lambda s, r: mpixrma.Alltoall_init(
        [s, 2, MPI.DOUBLE], [r, 3 if rank == 0 else 2, MPI.DOUBLE], comm=comm)),
    "alltoall wrong datatype": (TypeError, lambda s, r: mpixrma.Alltoall_init([s, 2, MPI.DOUBLE],
                                                                              [r.view(np.int32), 2, MPI.DOUBLE],
                                                                              comm)),
    "alltoall non-contiguous": (ValueError, lambda s, r: mpixrma.Alltoall_init(np.zeros(4 * size)[::2], r, comm=comm)),
    "alltoall spec of four": (TypeError, lambda s, r: mpixrma.Alltoall_init([s, 2, MPI.DOUBLE, 0], r, comm=comm)),
    "neighbour counts past the degree": (ValueError, "graph", lambda s, r, g: mpixrma.Neighbor_alltoallv_init(
        [s, ([1, 1, 1], [0, 1, 2]), MPI.DOUBLE], [r, ([1, 1], [0, 1]), MPI.DOUBLE], comm=g)),
    "neighbour counts short of the degree": (ValueError, "graph", lambda s, r, g: mpixrma.Neighbor_alltoallv_init(
        [s, ([1, 1], [0, 1]), MPI.DOUBLE], [r, ([1], [0]), MPI.DOUBLE], comm=g)),
    "neighbour block past the view": (ValueError, "graph", lambda s, r, g: mpixrma.Neighbor_alltoallv_init(
        [s, ([1, 1], [0, 1]), MPI.DOUBLE], [r, ([1, 2 * size], [0, 1]), MPI.DOUBLE], comm=g)),
    "neighbour exchange on a plain communicator": (TypeError, "plain", lambda s, r, g: mpixrma.Neighbor_alltoallv_init(
        [s, ([1, 1], [0, 1]), MPI.DOUBLE], [r, ([1, 1], [0, 1]), MPI.DOUBLE], comm=comm)),
}


@pytest.mark.parametrize("case", sorted(hostile))
def test_a_hostile_argument_raises_on_every_rank(case):
    expected, *graph, call = hostile[case]
    send_parent, send = viewed(2 * size)
    recv_parent, recv = viewed(2 * size)
    send[:] = rank
    g = ring_graph() if graph else None
    with pytest.raises(expected) as raised:
        req = call(send, recv, g) if graph else call(send, recv)
        req.Start()  # only reached where the check is missing: shows what it would write
        req.Wait()
        req.Free()
    if g is not None:
        g.Free()
    assert margins_intact(send_parent, recv_parent), "bytes outside the buffers changed"
    assert "rank" in str(raised.value)


def test_a_request_freed_twice_or_used_after_free_raises():
    send, recv = np.zeros(size), np.zeros(size)
    req = mpixrma.Alltoall_init(send, recv, comm=comm)
    req.Free()
    with pytest.raises(mpixrma.Error) as twice:
        req.Free()
    assert MPI.Get_error_class(twice.value.error_code) == MPI.ERR_REQUEST
    with pytest.raises(mpixrma.Error):
        req.Start()
    with pytest.raises(mpixrma.Error):
        req.Start_with_buffers(send, recv)
    # As mpi4py's on a null request: nothing to wait for.
    assert req.Wait() is None and req.Test() is True
    with mpixrma.Alltoall_init(send, recv, comm=comm) as inside:
        inside.Free()  # the block's end then frees nothing
    xcomm = mpixrma.Comm(comm)
    xcomm.Free()
    with pytest.raises(mpixrma.Error) as comm_twice:
        xcomm.Free()
    assert MPI.Get_error_class(comm_twice.value.error_code) == MPI.ERR_COMM
