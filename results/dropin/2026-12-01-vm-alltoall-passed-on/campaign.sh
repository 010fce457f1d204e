#!/bin/bash
# The measurements of this stop, one after another (never side by side):
# ../2026-11-30-vm-blocking-claimed/campaign.sh (every blocking exchange
# against plain MPI, every loop; the persistent and nonblocking forms;
# three ways; the uniform MPI_Alltoallv sweep against MPI_Alltoall's, here
# with UNIFORM_PAIRS pairs, 40 by default), then the uniform comparison
# timed from each pattern's first call (../2026-12-01-vm-grown-exchanges/
# prefix.sh), its files under the commit measured. RUN names the phase.
cd "$(git rev-parse --show-toplevel)"
here=results/dropin/2026-12-01-vm-alltoall-passed-on
R=$here/$(git rev-parse --short HEAD)
mkdir -p "$R"
R=$R UNIFORM_PAIRS=${UNIFORM_PAIRS:-40} bash results/dropin/2026-11-30-vm-blocking-claimed/campaign.sh
bash results/dropin/2026-12-01-vm-grown-exchanges/prefix.sh build 10 /tmp/passed_on_prefix \
  > "$R/${RUN:-phase1}-uniform-prefix.txt" 2>&1
echo prefix done
