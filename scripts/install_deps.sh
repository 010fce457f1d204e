#!/usr/bin/env bash
# Installs the Debian packages mpix-rma needs; does nothing when all are there.
set -euo pipefail
packages=(build-essential cmake pkg-config gfortran mpich libmpich-dev openmpi-bin libopenmpi-dev libhwloc-dev libgtest-dev
          libsuitesparse-dev libfftw3-dev libfftw3-mpi-dev nlohmann-json3-dev libcli11-dev python3 python3-matplotlib
          doxygen man-db python3-dev python3-mpi4py python3-pytest libsimgrid-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install_deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
