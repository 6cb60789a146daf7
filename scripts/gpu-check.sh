#!/usr/bin/env bash
# scripts/gpu-check.sh OUTDIR: the prepared GPU check, in at most 6 minutes on a machine with a
# GPU, CUDA 13, CMake and Python (NCCL in a pip wheel), without MPI and without internet:
#   1. reuse the build in $RINGLAB_GPU_BUILD (default build/gpu) when its binaries run here,
#      otherwise configure and build it (-DRINGLAB_ENABLE_MPI=OFF, CUDA on, NCCL found through
#      RINGLAB_NCCL_ROOT or the nvidia.nccl pip wheel);
#   2. the GPU tests (those of ctest -L gpu, largest count 2^16 + 3): device kernels and
#      cuda-peer, bit for bit (the float16 and bfloat16 kernels also on every bit pattern);
#   3. ringlab_device_bench on 1 GiB buffers: the reduce kernels of float32 sum, float16 sum and
#      min, bfloat16 sum and min, each out of place and in place, against a device-to-device
#      copy in bytes moved per second, each judged against the goal >= 0.85x the copy (a
#      "# goal:" line counts the rows that meet it; a miss is a finding, not a failed step);
#   4. ringlab bench --backend cuda-peer for every algorithm at N = 2, 4, 8 virtual ranks on GPU 0,
#      8 B .. 256 MiB, JSON reports in OUTDIR (validated when python3 has jsonschema);
#   5. the training harness's GPU compute: its tests (every cuDNN/cuBLAS op against the CPU, a tiny
#      VGG's SGD steps CPU vs GPU), then `ringlab train --compute cpu` and `--compute gpu` on the
#      same model, data and steps, with the GPU-over-CPU ratio of the mean step time in
#      OUTDIR/train-compute.json and summary.txt;
#   6. compute-sanitizer memcheck and racecheck on the GPU tests (small counts), last,
#      so that the steps bearing the issues' goals run first if the budget runs short.
# Every step runs under `timeout`; OUTDIR/summary.txt says what ran, what passed and the figures.
# `scripts/gpu-check.sh --prepare` (on the build machine) makes build/gpu and copies the shared
# libraries its binaries need beyond CUDA/NCCL/cuDNN/cuBLAS (libfmt, Highway, OpenBLAS and its Fortran
# runtime, hwloc and its libudev) into build/gpu/runtime-libs, so the folder can be carried to a GPU machine that
# lacks the Debian packages (cuDNN and cuBLAS come from the toolkit or the nvidia.* pip wheels),
# and packs what the check runs into build/gpu-run.tar.xz (about 7 MB; see --prepare below).
set -uo pipefail
cd "$(dirname "$0")/.."
build=${RINGLAB_GPU_BUILD:-build/gpu}

nccl_root() {
  if [[ -n ${RINGLAB_NCCL_ROOT:-} ]]; then echo "$RINGLAB_NCCL_ROOT"; return; fi
  python3 -c 'import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__))' 2>/dev/null || true
}

configure_and_build() {
  local root generator
  root=$(nccl_root)
  generator=$(command -v ninja >/dev/null && echo Ninja || echo 'Unix Makefiles')
  configure() {
    cmake -S . -B "$build" -G "$generator" -DCMAKE_BUILD_TYPE=Release -DRINGLAB_ENABLE_MPI=OFF \
      -DRINGLAB_ENABLE_BENCHMARKS=OFF -DRINGLAB_ENABLE_CUDA=ON ${root:+-DRINGLAB_NCCL_ROOT="$root"} \
      ${CMAKE_CUDA_COMPILER:+-DCMAKE_CUDA_COMPILER="$CMAKE_CUDA_COMPILER"} "$@"
  }
  # Without GoogleTest the tests are left out (the bench steps still run).
  configure || configure -DRINGLAB_ENABLE_TESTS=OFF || return 1
  local targets=(ringlab ringlab_device_bench)
  cmake --build "$build" --target help | grep -q ringlab_cuda_tests && targets+=(ringlab_cuda_tests)
  cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"
}

if [[ ${1:-} == --prepare ]]; then
  configure_and_build || exit 1
  mkdir -p "$build/runtime-libs"
  ldd "$build/cli/ringlab" | awk '/libfmt|libhwy|libopenblas|libgfortran|libquadmath|libhwloc|libudev/ {print $3}' \
    | xargs -r cp -L -t "$build/runtime-libs"
  # The whole build folder (objects, CMake files) is about 76 MB; what the check runs, packed, is
  # about 7 MB: $build-run.tar.xz holds a folder gpu-run/ with the three binaries and runtime-libs.
  # On the GPU machine: tar xJf build/gpu-run.tar.xz -C build && RINGLAB_GPU_BUILD=build/gpu-run
  # bash scripts/gpu-check.sh OUTDIR.
  pack=$(mktemp -d) || exit 1
  trap 'rm -rf "$pack"' EXIT
  mkdir -p "$pack/gpu-run/cli" "$pack/gpu-run/bench" "$pack/gpu-run/tests"
  cp "$build/cli/ringlab" "$pack/gpu-run/cli/" && cp "$build/bench/ringlab_device_bench" "$pack/gpu-run/bench/" \
    && cp -r "$build/runtime-libs" "$pack/gpu-run/" || exit 1
  [[ -x $build/tests/ringlab_cuda_tests ]] && cp "$build/tests/ringlab_cuda_tests" "$pack/gpu-run/tests/"
  tar cJf "$build-run.tar.xz.partial" -C "$pack" gpu-run && mv "$build-run.tar.xz.partial" "$build-run.tar.xz" || exit 1
  echo "gpu-check: $build is ready ($(ls "$build/runtime-libs" | tr '\n' ' ')); packed for a GPU machine:" \
    "$build-run.tar.xz ($(du -h "$build-run.tar.xz" | cut -f1))"
  exit 0
fi

usage='usage: scripts/gpu-check.sh OUTDIR  (or --prepare); the header of this script says what runs'
[[ ${1:-} == -h || ${1:-} == --help ]] && { echo "$usage"; exit 0; }
[[ -z ${1:-} || ${1:-} == -* ]] && { echo "$usage" >&2; exit 2; }
out=$1
mkdir -p "$out"
summary=$out/summary.txt
start=$(date +%s)
log() { echo "$*" | tee -a "$summary"; }
: >"$summary"
log "# ringlab gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"

# Libraries from pip wheels (NCCL, cuDNN, cuBLAS; the CUDA runtime where the toolkit's is not on
# the loader path): every nvidia.* wheel folder that has a lib/ (CUDA 13 wheels may share nvidia/cu13).
wheel_libs=$(python3 -c 'import importlib, os
for name in ("nvidia.nccl", "nvidia.cuda_runtime", "nvidia.cudnn", "nvidia.cublas", "nvidia.cu13"):
    try: module = importlib.import_module(name)
    except Exception: continue
    for folder in list(getattr(module, "__path__", [])) or [os.path.dirname(module.__file__)]:
        if os.path.isdir(os.path.join(folder, "lib")): print(os.path.join(folder, "lib"))' 2>/dev/null | paste -sd:)
root=$(nccl_root)
export LD_LIBRARY_PATH="$PWD/$build/runtime-libs${root:+:$root/lib}${wheel_libs:+:$wheel_libs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
runs() { "$build/cli/ringlab" --help >/dev/null 2>&1 && "$build/bench/ringlab_device_bench" --help >/dev/null 2>&1; }
if runs; then
  log "build: reusing $build"
else
  log "build: $build does not run here; configuring and building it (log: $out/build.log)"
  for binary in "$build/cli/ringlab" "$build/bench/ringlab_device_bench"; do
    [[ -x $binary ]] && ldd "$binary" 2>&1 | grep "not found" | sed "s|^|build: $binary needs |" | tee -a "$summary"
  done
  timeout 240 bash -c "$(declare -f nccl_root configure_and_build); build=$build; configure_and_build" >"$out/build.log" 2>&1 \
    || { log "build: FAILED (see $out/build.log)"; exit 1; }
fi
command -v nvidia-smi >/dev/null && nvidia-smi -L >"$out/nvidia-smi.txt" 2>&1
status=0

left() { echo $((360 - ($(date +%s) - start))); }
step() {  # step NAME SECONDS COMMAND...: runs under timeout, logs the outcome
  local name=$1 limit=$2
  shift 2
  ((limit > $(left) - 5)) && limit=$(($(left) - 5))
  if ((limit < 5)); then log "$name: NOT RUN (6-minute budget spent)"; status=1; return; fi
  timeout "$limit" "$@" >"$out/$name.log" 2>&1
  local rc=$?
  if ((rc == 0)); then log "$name: ok ($(($(date +%s) - start)) s elapsed)"; else log "$name: FAILED rc=$rc (see $out/$name.log)"; status=1; fi
}

# The tests of CTest label gpu, run by the test binary itself (a carried build's CTest files name
# the build machine's paths); gpu.bench_cuda_peer is covered by the bench step below.
if [[ ! -x $build/tests/ringlab_cuda_tests ]]; then
  log "gpu-tests: NOT RUN ($build has no ringlab_cuda_tests: built without GoogleTest)"
  status=1
else
# The largest count drops from 2^20 + 3 to 2^16 + 3 elements (as the sanitizer build does) to fit
# the 6 minutes; `ctest -L gpu` in a build runs the full sizes.
step gpu-tests 150 env RINGLAB_TEST_LARGE_COUNT=65539 "$build/tests/ringlab_cuda_tests" --gtest_filter='*DeviceReduce*:*CudaPeer*:CudaErrors.*'
grep -E "^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ test" "$out/gpu-tests.log" | tee -a "$summary"
if grep -q "no CUDA device" "$out/gpu-tests.log"; then log "gpu-tests: SKIPPED, no CUDA device is visible"; status=1; fi
fi
# 1 GiB x (1 copy + 10 kernels) x 11 runs: about 1 s on an H200 (float32 sum alone took under 1 s).
step device-reduce 40 "$build/bench/ringlab_device_bench" --bytes $((1 << 30)) --repetitions 10 \
  --kernels float32:sum,float16:sum,float16:min,bfloat16:sum,bfloat16:min --goal 0.85 --json "$out/device-reduce.json"
cat "$out/device-reduce.log" >>"$summary"
for n in 2 4 8; do
  step "cuda-peer-n$n" 50 "$build/cli/ringlab" bench --backend cuda-peer --ranks "$n" --ranks-per-gpu "$n" -b 8 -e 256M -f 2 \
    -n 5 -w 2 --iters-small 20 --segment-bytes 0 --timeout 60 --json "$out/cuda-peer-n$n.json" --force
  grep -E "^# Avg bus bandwidth|Out of bounds" "$out/cuda-peer-n$n.log" >>"$summary"
done
# The training harness's GPU compute: its tests, then one short CPU vs GPU training of the same
# model, data and steps (mean step time after the first step, from each run's ringlab.train/1).
if [[ -x $build/tests/ringlab_cuda_tests ]]; then
  step gpu-training-tests 60 "$build/tests/ringlab_cuda_tests" --gtest_filter='GpuComputeErrors.*:GpuCompute.*:GpuTraining.*'
  grep -E "^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ test" "$out/gpu-training-tests.log" | tee -a "$summary"
  if grep -q "no CUDA device" "$out/gpu-training-tests.log"; then
    log "gpu-training-tests: SKIPPED, no CUDA device is visible"
    status=1
  fi
fi
train_args=(train --model cifar-vgg,width=32,fc=1024 --synthetic 2K --batch 64 --steps 6 --log-every 6)
step train-cpu 45 "$build/cli/ringlab" "${train_args[@]}" --compute cpu --json "$out/train-cpu.json" --force
step train-gpu 45 "$build/cli/ringlab" "${train_args[@]}" --compute gpu --json "$out/train-gpu.json" --force
grep -hE "^# (ringlab train|host)|^# mean of" "$out/train-cpu.log" "$out/train-gpu.log" 2>/dev/null >>"$summary"
if [[ -f $out/train-cpu.json && -f $out/train-gpu.json ]]; then
  python3 - "$out/train-cpu.json" "$out/train-gpu.json" "$out/train-compute.json" <<'PY' | tee -a "$summary"
import json, sys
cpu, gpu = (json.load(open(path)) for path in sys.argv[1:3])
seconds = {name: report["summary"]["mean_iteration_seconds"] for name, report in (("cpu", cpu), ("gpu", gpu))}
result = {"model": cpu["config"]["model"], "global_batch": cpu["config"]["global_batch"],
          "steps": cpu["config"]["steps"], "timed_steps": cpu["summary"]["timed_steps"],
          "cpu_compute": cpu["compute"], "gpu_compute": gpu["compute"],
          "cpu_seconds_per_step": seconds["cpu"], "gpu_seconds_per_step": seconds["gpu"],
          "gpu_speedup": seconds["cpu"] / seconds["gpu"] if seconds["gpu"] > 0 else None,
          "final_loss_cpu": cpu["summary"]["final_loss"], "final_loss_gpu": gpu["summary"]["final_loss"]}
json.dump(result, open(sys.argv[3], "w"), indent=1)
print(f"train-compute: {result['model']} batch {result['global_batch']}: cpu {seconds['cpu'] * 1e3:.1f} ms/step, "
      f"gpu {seconds['gpu'] * 1e3:.1f} ms/step, gpu speed-up {result['gpu_speedup']:.2f}x; final loss cpu "
      f"{result['final_loss_cpu']:.6f}, gpu {result['final_loss_gpu']:.6f}")
PY
else
  log "train-compute: no ratio (a training run failed or did not run)"
  status=1
fi
# compute-sanitizer (docs/reliability.md, "Sanitizers"): memcheck and racecheck on the device
# kernels and the cuda-peer all-reduce, largest count 1027 (each tool slows a kernel tens of
# times); the out-of-memory test is left out, its failing cudaMalloc is the point of it.
# memcheck takes every type (33 s on an H200, 2026-12-04); racecheck, about 1 s per cuda-peer
# test there, takes every device-reduce test (each kernel, type and op) and the cuda-peer tests
# of float32 and bfloat16 (the full and the half-width vector paths): 56 s, where all types ran
# past 40 s.
sanitizer=$(command -v compute-sanitizer || true)
[[ -z $sanitizer && -x ${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer ]] && sanitizer=${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer
if [[ -z $sanitizer || ! -x $build/tests/ringlab_cuda_tests ]]; then
  log "compute-sanitizer: NOT RUN (${sanitizer:-compute-sanitizer not found}; tests built: $([[ -x $build/tests/ringlab_cuda_tests ]] && echo yes || echo no))"
else
  sanitize() {  # sanitize TOOL SECONDS FILTER
    step "sanitizer-$1" "$2" env RINGLAB_TEST_LARGE_COUNT=1027 "$sanitizer" --tool "$1" --error-exitcode 1 \
      "$build/tests/ringlab_cuda_tests" --gtest_filter="$3"
    grep -E "(ERROR|RACECHECK) SUMMARY" "$out/sanitizer-$1.log" | tail -1 | sed "s/^/sanitizer-$1: /" >>"$summary"
  }
  sanitize memcheck 60 'DeviceReduce*:CudaPeerAllreduce*'
  sanitize racecheck 80 'DeviceReduce*:CudaPeerAllreduce*float32:CudaPeerAllreduce*bfloat16'
fi
if python3 -c 'import jsonschema' 2>/dev/null; then
  for report in "$out"/cuda-peer-n*.json; do
    [[ -f $report ]] && step "validate-$(basename "$report" .json)" 20 python3 plotting/validate_report.py "$report"
  done
else
  log "validate: skipped (python3 has no jsonschema module)"
fi
log "total: $(($(date +%s) - start)) s, status $status"
exit "$status"
