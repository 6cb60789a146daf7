#!/usr/bin/env bash
# Makes a Python virtual environment with ringlab's report package (plotting/, ringlab_reports)
# installed, for a python3 that lacks pandas, matplotlib or jsonschema.
# Usage: bash scripts/venv.sh [DIR]   (default build/venv in the repository, which git ignores)
#   PYTHON=/path/to/python3   the interpreter to base it on (default python3)
#   VENV_ISOLATED=1           ignore the distribution's packages (default: use them where present,
#                             e.g. Debian's python3-pandas, and fetch only what is missing from PyPI)
#   EDITABLE=0                copy the package instead of following the checkout (pip install -e)
# Then: PYTHON=DIR/bin/python bash scripts/main.sh, or `source DIR/bin/activate`; CMake's tests
# find DIR/bin/python3 when it is first on PATH at configure time (cmake/ringlab_python.cmake).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build/venv}
python=${PYTHON:-python3}
command -v "$python" >/dev/null || { echo "venv.sh: no $python on PATH; give PYTHON=/path/to/python3" >&2; exit 2; }
if ! "$python" -c 'import venv, ensurepip' 2>/dev/null; then
  echo "venv.sh: $python cannot make virtual environments (no venv/ensurepip module);" \
       "on Debian: apt-get install python3-venv" >&2
  exit 2
fi
site=(--system-site-packages)
[[ ${VENV_ISOLATED:-0} == 1 ]] && site=()
"$python" -m venv "${site[@]}" "$dir"
install=("$root/plotting")
[[ ${EDITABLE:-1} == 1 ]] && install=(-e "$root/plotting")
"$dir/bin/python" -m pip install --disable-pip-version-check "${install[@]}"
"$dir/bin/python" -c 'import ringlab_reports, pandas, matplotlib, jsonschema
print(f"venv.sh: ready: ringlab_reports from {ringlab_reports.__file__}, pandas {pandas.__version__}, "
      f"matplotlib {matplotlib.__version__}")'
echo "venv.sh: use it with PYTHON=$dir/bin/python bash scripts/main.sh, or: source $dir/bin/activate"
