#!/usr/bin/env bash
# tessera quick start: installs missing system packages, configures, then
#   scripts/quickstart.sh demo   builds tessera alone and runs the demo deck on 2 MPI ranks (GPU if visible, else CPU)
#   scripts/quickstart.sh test   builds everything and runs the whole test suite through ctest
# Environment: BUILD_DIR (default build), TESSERA_CUDA (AUTO|ON|OFF), JOBS (default nproc).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-demo}
case "$mode" in demo|test) ;; *) echo "usage: $0 demo|test" >&2; exit 2 ;; esac
build=${BUILD_DIR:-build}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}

say() { printf '\033[1m[quickstart]\033[0m %s\n' "$*"; }

# 1. System packages (Debian/Ubuntu). Nothing is downloaded at configure time.
packages=(cmake make g++ pkg-config git openmpi-bin libopenmpi-dev libhdf5-openmpi-dev
          libtomlplusplus-dev libcli11-dev libspdlog-dev libfmt-dev libgtest-dev
          python3 python3-h5py python3-numpy python3-matplotlib)
# The test mode also opens tessera's outputs with the tools users read them with: yt (N-body
# snapshots), ParaView's pvpython under a virtual X server (FDTD fields) and h5dump
# (about 160 MB of packages).
if [ "$mode" = test ]; then packages+=(python3-yt python3-paraview xvfb xauth hdf5-tools); fi
if command -v dpkg-query >/dev/null 2>&1; then
  missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    line="apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
    if [ "$(id -u)" -eq 0 ]; then
      say "installing: ${missing[*]}"
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
    elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      say "installing with sudo: ${missing[*]}"
      sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
    else
      echo "tessera needs these packages; install them as root and run this again:" >&2
      echo "  sudo sh -c '$line'" >&2
      exit 1
    fi
  fi
else
  say "not a Debian/Ubuntu system: make sure MPI, parallel HDF5, toml++, CLI11, spdlog, fmt and GoogleTest are installed"
fi

# 2. Configure and build (CUDA is used when a toolkit is found).
cuda_args=()
[ -n "${TESSERA_CUDA:-}" ] && cuda_args+=("-DTESSERA_CUDA=$TESSERA_CUDA")
if [ -z "${TESSERA_CUDA:-}" ] && ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  say "using the CUDA toolkit in /usr/local/cuda"
fi
say "configuring in $build"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release "${cuda_args[@]}" >/dev/null
# The demo needs only the executable; the test suite needs everything (its test programs are
# most of the build time).
if [ "$mode" = demo ]; then
  say "building tessera with $jobs jobs"
  cmake --build "$build" -j "$jobs" --target tessera
else
  say "building everything with $jobs jobs"
  cmake --build "$build" -j "$jobs"
fi

# 3. Run. Open MPI refuses root unless told; oversubscribe lets 2 ranks run on 1 core.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
if [ "$mode" = demo ]; then
  deck=inputs/demo.toml
  if [ -f "$deck" ]; then
    # --overwrite: a second demo replaces the first one's outputs instead of being refused.
    say "running: mpirun -np 2 $build/bin/tessera run $deck --overwrite"
    exec mpirun -np 2 "$build/bin/tessera" run "$deck" --overwrite
  fi
  say "no solver deck yet: running mpirun -np 2 $build/bin/tessera info"
  exec mpirun -np 2 "$build/bin/tessera" info
else
  say "running the test suite (gpu tests skip themselves where no GPU is visible)"
  exec ctest --test-dir "$build" --output-on-failure -j "$jobs"
fi
