#!/usr/bin/env bash
# Installs the Debian packages ringlab builds and tests with, if any is missing (needs root), then
# keeps the `mpi` and `mpirun` alternatives on MPICH: Open MPI (installed for CTest
# mpi.openmpi_sweep, docs/launching.md) has the higher priority and would otherwise take
# mpicc/mpicxx/mpiexec. The presets name MPICH's tools by their own names either way.
set -euo pipefail
packages=(cmake ninja-build g++ make pkg-config mpich libmpich-dev openmpi-bin libopenmpi-dev libfmt-dev nlohmann-json3-dev libcli11-dev
          libhwy-dev libgtest-dev libgmock-dev libbenchmark-dev libopenblas-dev python3 python3-matplotlib python3-jsonschema
          python3-pandas python3-venv python3-setuptools  # the report scripts; scripts/venv.sh
          libhwloc-dev iproute2  # iproute2: network namespaces for mpi.two_hosts_netns
          clang libclang-rt-14-dev)  # clang + its runtime: the libFuzzer targets (scripts/fuzz.sh)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
  echo "ringlab: installing missing packages: ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# MPICH stays the default MPI (`mpiexec`, `mpicxx`): pinned as root; otherwise said if it is not.
if [[ $(id -u) -eq 0 ]]; then
  update-alternatives --quiet --set mpi /usr/bin/mpicc.mpich
  update-alternatives --quiet --set mpirun /usr/bin/mpirun.mpich
elif [[ $(readlink -f /usr/bin/mpiexec) != */mpiexec.hydra ]]; then
  echo "ringlab: mpiexec is not MPICH's; as root: update-alternatives --set mpi /usr/bin/mpicc.mpich &&" \
       "update-alternatives --set mpirun /usr/bin/mpirun.mpich (the presets use MPICH by name either way)"
fi
