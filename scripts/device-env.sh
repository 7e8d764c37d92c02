# Sourced by the scripts/device-*.sh runs: where the carried binaries are and where logs go.
export LD_LIBRARY_PATH="$PWD/.carry/bin:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
out=${OUT:-/tmp/out}
bin=.carry/bin
mkdir -p "$out"
