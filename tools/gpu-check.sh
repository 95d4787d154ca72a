#!/usr/bin/env bash
# The GPU check, in one command for a machine with an NVIDIA GPU and nvcc:
# a Release build with the CUDA backend and the benchmarks, then
#   1. the tests labelled `gpu` (the CUDA backend against the Exact plans),
#   2. the rest of the test suite (its Fast plans now run on the device),
#   3. the W1 (square products) and W2 (MLP training step) benchmarks,
# each under its own time limit, and a summary. Designed to finish inside ten
# minutes on 16 cores (the time limits add up to ten minutes).
#   tools/gpu-check.sh [build folder]   (default build-gpu; JOBS=n overrides -j)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2

readonly build=${1:-build-gpu}
readonly jobs=${JOBS:-$(nproc)}
readonly started=$SECONDS
declare -a summary=()

banner() {
    printf '==== %s  [%ds]\n' "$*" $((SECONDS - started))
}

# record <name> <status>: one line of the summary.
record() {
    local verdict=passed
    (($2 == 124)) && verdict="TIMED OUT"
    (($2 != 0 && $2 != 124)) && verdict="FAILED (status $2)"
    summary+=("$1: $verdict")
}

nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if [[ ! -x $nvcc ]]; then
    echo "gpu-check: no nvcc on this machine (looked in PATH and /usr/local/cuda/bin)"
    exit 2
fi
if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader ||
        echo "gpu-check: nvidia-smi found no device; the gpu tests will skip"
else
    echo "gpu-check: no nvidia-smi; if no device is present the gpu tests skip"
fi

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)

# configure_with <benchmarks ON|OFF>
configure_with() {
    timeout 60 cmake -S . -B "$build" "${generator[@]}" --log-level=WARNING -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_CUDA_COMPILER="$nvcc" -DTOPOS_ENABLE_CUDA=ON -DTOPOS_BUILD_BENCHMARKS="$1" \
        -DTOPOS_BUILD_TESTS=ON -DTOPOS_BUILD_EXAMPLES=OFF
}

banner "configure (Release, CUDA, benchmarks) in $build"
benchmarks=ON
configure_with ON
status=$?
if ((status != 0 && status != 124)); then
    echo "gpu-check: configuring with the benchmarks failed (Google Benchmark missing?); without them"
    benchmarks=OFF
    configure_with OFF
    status=$?
fi
record configure $status
if ((status == 0)); then
    banner "build the library, the tests and the benchmarks (-j$jobs)"
    timeout 240 cmake --build "$build" -j"$jobs"
    status=$?
    record build $status
fi
if ((status == 0)); then
    banner "1. the tests labelled gpu"
    timeout 60 ctest --test-dir "$build" --output-on-failure --no-tests=error -L gpu
    record "gpu tests" $?

    banner "2. the rest of the tests, Fast plans on the device"
    timeout 90 ctest --test-dir "$build" --output-on-failure --parallel "$jobs" -LE 'gpu|slow'
    record "other tests" $?

    banner "3. W1 and W2: the CUDA backend beside the reference"
    if [[ $benchmarks == OFF ]]; then
        summary+=("W1/W2 benchmarks: NOT BUILT (no Google Benchmark)")
    else
        timeout 150 "$build/bench/cuda_bench" --benchmark_min_time=0.2 \
            --benchmark_counters_tabular=true
        record "W1/W2 benchmarks" $?
    fi
fi

banner "summary"
printf '  %s\n' "${summary[@]}"
for line in "${summary[@]}"; do
    [[ $line == *": passed" ]] || exit 1
done
