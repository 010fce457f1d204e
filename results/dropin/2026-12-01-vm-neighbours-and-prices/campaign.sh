#!/bin/bash
# The measurements of this stop, one after another (never side by side):
# ../2026-11-30-vm-blocking-claimed/campaign.sh (every blocking exchange
# against plain MPI, launches alternating, every loop; the persistent and
# nonblocking forms; three ways; the uniform MPI_Alltoallv sweep against
# MPI_Alltoall's), its files under the commit measured. RUN names the phase.
cd "$(git rev-parse --show-toplevel)"
R=results/dropin/2026-12-01-vm-neighbours-and-prices/$(git rev-parse --short HEAD)
mkdir -p "$R"
R=$R exec bash results/dropin/2026-11-30-vm-blocking-claimed/campaign.sh
