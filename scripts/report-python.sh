# Sourced by the scripts that run plotting/ (sweep.sh, scale-predictions.sh,
# calibrate-and-compare.sh, type-op-accuracy.sh). require_report_python NAME sets $python to ${PYTHON:-python3}, or,
# when that python cannot import what the report scripts need (pandas, matplotlib, jsonschema),
# says how to get one and exits 2, before anything runs.
require_report_python() {
  python=${PYTHON:-python3}
  if ! "$python" -c 'import pandas, matplotlib, jsonschema' 2>/dev/null; then
    echo "$1: $python cannot import pandas, matplotlib and jsonschema, which the report scripts need;" \
         "install python3-pandas python3-matplotlib python3-jsonschema, or give PYTHON=/path/to/python3" \
         "(e.g. the distribution's python3 where python3 is a pyenv or conda one; bash scripts/venv.sh" \
         "makes build/venv/bin/python with them)" >&2
    exit 2
  fi
}
