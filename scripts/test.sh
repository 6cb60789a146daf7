#!/usr/bin/env bash
# The whole test suite: installs missing packages, configures and builds a preset (default
# release; `scripts/test.sh asan` for AddressSanitizer + UndefinedBehaviorSanitizer, `tsan` for the
# threads-backend tests under ThreadSanitizer), runs CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-release}
bash scripts/install-deps.sh
cmake --preset "$preset"
cmake --build --preset "$preset" -j "$(nproc)"
ctest --preset "$preset" -j "$(nproc)"
