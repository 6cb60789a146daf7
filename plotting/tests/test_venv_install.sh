#!/usr/bin/env bash
# `pip install ./plotting` and `pip install -e ./plotting` in throwaway virtual environments, offline:
# each venv sees the distribution's packages (--system-site-packages), pip builds with the installed
# setuptools (--no-build-isolation) and fetches nothing (--no-index). Then, from another folder,
# ringlab_reports loads a committed bench report; the copy must come from the venv (plain install)
# or from the source (editable). The package is installed from a copy of plotting/ under OUTDIR, so
# the checkout gets no build/ or egg-info.
# Usage: test_venv_install.sh OUTDIR [REPORT]   ($PYTHON, default python3, makes the venvs)
# Exit 0: both work; 1: one failed; 77 (skipped), with the reason: this python cannot make venvs or
# lacks what an offline install needs (setuptools, pandas, matplotlib, jsonschema).
set -uo pipefail
out=${1:?usage: $0 OUTDIR [REPORT]}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
plotting=$(dirname "$here")
report=${2:-$here/sample-report-n2.json}
python=${PYTHON:-python3}
skip() { echo "test_venv_install: skipped: $*"; exit 77; }

"$python" -c 'import venv, ensurepip' 2>/dev/null || skip "$python has no venv/ensurepip module (apt-get install python3-venv)"
missing=$("$python" -c 'import importlib.util as u; print(" ".join(m for m in ("setuptools", "pandas", "matplotlib", "jsonschema") if u.find_spec(m) is None))')
[[ -z $missing ]] || skip "$python lacks $missing, which an offline install (--no-index) cannot fetch"

rm -rf "$out" && mkdir -p "$out/source" "$out/elsewhere" || exit 1
cp -r "$plotting/pyproject.toml" "$plotting/README.md" "$plotting/ringlab_reports" "$out/source/" || exit 1
failed=0
for mode in plain editable; do
  venv=$out/venv-$mode
  if ! "$python" -m venv --system-site-packages "$venv" >"$out/venv-$mode.log" 2>&1; then
    cat "$out/venv-$mode.log"; skip "$python -m venv failed (above)"
  fi
  target=("$out/source")
  [[ $mode == editable ]] && target=(-e "$out/source")
  if ! "$venv/bin/python" -m pip install --no-index --no-build-isolation --disable-pip-version-check \
       "${target[@]}" >"$out/pip-$mode.log" 2>&1; then
    echo "FAIL: pip install ($mode):"; cat "$out/pip-$mode.log"; failed=1; continue
  fi
  expected=$venv/lib
  [[ $mode == editable ]] && expected=$out/source/ringlab_reports
  if (cd "$out/elsewhere" && "$venv/bin/python" - "$report" "$expected" <<'PY'
import sys
import ringlab_reports
frame = ringlab_reports.load(sys.argv[1])
assert ringlab_reports.__file__.startswith(sys.argv[2]), f"imported from {ringlab_reports.__file__}, not {sys.argv[2]}"
assert "time_us_p50" in frame.columns and len(frame) > 0, frame.columns
print(f"installed ringlab_reports ({ringlab_reports.__file__}) read {len(frame)} rows of a {frame.attrs['kind']} report")
PY
  ); then
    echo "PASS: pip install ($mode)"
  else
    echo "FAIL: ringlab_reports after pip install ($mode)"; failed=1
  fi
done
((failed == 0)) && echo "test_venv_install: both installs work"
exit "$failed"
