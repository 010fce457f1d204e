"""The Python binding's cost per iteration against C's and mpi4py's, in the
loop a Python code runs: --iterations Start + Wait of an mpixrma Alltoall
request of 8 B per peer (after as many untimed), and of an mpi4py
persistent send/receive pair of 8 B to the next rank (Prequest.Startall,
Request.Waitall), in --rounds interleaved rounds; bench_start_wait (C)
times the same two loops. Run under mpiexec; prints per round and loop the
time per iteration in microseconds (max over ranks):
  start_wait <loop> <round> <us>
benchmarks/python_binding.py runs both and compares."""
import argparse

import numpy as np
from mpi4py import MPI

import mpixrma


def timed(iteration, iterations, comm):
    for _ in range(iterations):
        iteration()
    comm.Barrier()
    start = MPI.Wtime()
    for _ in range(iterations):
        iteration()
    elapsed = (MPI.Wtime() - start) / iterations * 1e6
    return comm.allreduce(elapsed, op=MPI.MAX)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--iterations", type=int, default=10000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--algorithm", default="auto")
    args = parser.parse_args()
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    send, recv = np.zeros(size), np.zeros(size)
    request = mpixrma.Alltoall_init(send, recv, MPI.COMM_WORLD, info={"mpix_alltoall_algorithm": args.algorithm})
    peer_send, peer_recv = np.zeros(1), np.zeros(1)
    pair = [comm.Send_init(peer_send, (rank + 1) % size), comm.Recv_init(peer_recv, (rank - 1) % size)]

    def mpixrma_iteration(start=request.Start, wait=request.Wait):
        start()
        wait()

    def mpi4py_iteration(startall=MPI.Prequest.Startall, waitall=MPI.Request.Waitall):
        startall(pair)
        waitall(pair)

    for round_ in range(args.rounds):
        t_mpix = timed(mpixrma_iteration, args.iterations, comm)
        t_mpi = timed(mpi4py_iteration, args.iterations, comm)
        if rank == 0:
            print(f"start_wait mpixrma {round_} {t_mpix:.4f}\nstart_wait mpi {round_} {t_mpi:.4f}", flush=True)
    for r in pair:
        r.Free()
    request.Free()


if __name__ == "__main__":
    main()
