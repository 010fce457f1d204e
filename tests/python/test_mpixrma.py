"""The Python package against mpi4py's own calls, under mpiexec (every rank
runs the same tests in the same order, and asserts only after its
collective calls). tests/python/run.sh runs it on the installed package."""
import gc
import weakref

import numpy as np
import pytest
from mpi4py import MPI

import mpixrma

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()


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
    with mpixrma.Alltoallv_init([send, (scounts, sdispls), mpitype], [recv, (rcounts, rdispls), mpitype]) as req:
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


@pytest.mark.parametrize("family", ["alltoallv", "alltoall", "neighbor_alltoallv"])
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
                                    info={"mpix_alltoallv_algorithm": name}) as req:
            for _ in range(2):
                req.Start()
                req.Wait()
        if not np.array_equal(recv, expected):
            wrong.append(name)
    assert not wrong, f"wrong data from {wrong}"


def test_moving_buffers_need_the_info_key():
    send, recv = np.arange(size, dtype=np.float64), np.zeros(size)
    with mpixrma.Alltoall_init(send, recv, info={"mpix_buffers_move": "true"}) as req:
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
    with mpixrma.Alltoall_init(send, recv) as req:
        with pytest.raises(mpixrma.Error) as refused:
            req.Start_with_buffers(np.zeros(size), np.zeros(size))
    assert MPI.Get_error_class(refused.value.error_code) == MPI.ERR_REQUEST


def test_a_request_keeps_its_buffers():
    send, recv = np.ones(size), np.zeros(size)
    kept = weakref.ref(recv)
    req = mpixrma.Alltoall_init(send, recv)
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
                               [recv, ([1] * size, list(range(size))), MPI.DOUBLE])
    assert "count" in str(failed.value).lower()
