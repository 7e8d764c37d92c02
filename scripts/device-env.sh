# Sourced by the scripts/device-*.sh runs: where the carried binaries are, where logs go, and the
# scenario folder of the working tree (kda-bench runs from .carry/bin, away from ./scenarios).
export LD_LIBRARY_PATH="$PWD/.carry/bin:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export KDA_SCENARIOS=$PWD/scenarios
out=${OUT:-/tmp/out}
bin=.carry/bin
mkdir -p "$out"
