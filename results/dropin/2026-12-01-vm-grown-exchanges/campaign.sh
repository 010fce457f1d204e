#!/bin/bash
# The measurements of this stop, one after another (never side by side):
# ../2026-11-30-vm-blocking-claimed/campaign.sh (every blocking exchange
# against plain MPI, every loop; the persistent and nonblocking forms;
# three ways; the uniform MPI_Alltoallv sweep against MPI_Alltoall's), then
# the uniform comparison timed from each pattern's first call (prefix.sh),
# its files under the commit measured. RUN names the phase.
cd "$(git rev-parse --show-toplevel)"
here=results/dropin/2026-12-01-vm-grown-exchanges
R=$here/$(git rev-parse --short HEAD)
mkdir -p "$R"
R=$R bash results/dropin/2026-11-30-vm-blocking-claimed/campaign.sh
bash $here/prefix.sh build 6 /tmp/grown_prefix > "$R/${RUN:-phase1}-uniform-prefix.txt" 2>&1
echo prefix done
