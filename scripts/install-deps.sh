#!/usr/bin/env bash
# Installs the Debian packages ringlab builds and tests with, if any is missing (needs root).
set -euo pipefail
packages=(cmake ninja-build g++ make pkg-config mpich libmpich-dev libfmt-dev nlohmann-json3-dev libcli11-dev
          libgtest-dev libgmock-dev libbenchmark-dev libopenblas-dev python3 python3-matplotlib python3-jsonschema
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
