#!/usr/bin/env bash
# Installs every build and test dependency of kda-bench from Debian packages.
# Safe to run again; needs root (or sudo). Used by README's set-up command and by .ci/run.
set -euo pipefail
packages=(
  build-essential cmake ninja-build git python3 python3-numpy python3-matplotlib
  libeigen3-dev libspdlog-dev libfmt-dev libcli11-dev nlohmann-json3-dev
  libgtest-dev libbenchmark-dev
)
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "error: the CUDA toolkit (nvcc, cudart, cuBLAS) is required; install CUDA 12.4+ (13.0 tested)" >&2
  exit 1
fi
echo "dependencies ready"
