#!/usr/bin/env bash
# The README's main-job command: installs the dependencies (Debian packages) if missing,
# configures and builds (incrementally), then runs kda-bench with the given arguments.
#   scripts/kda-bench.sh --rows 4doc:raw:off:saved
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${KDA_BUILD_DIR:-build}
"$root/scripts/install-deps.sh" >&2
if [ ! -f "$root/$build/build.ninja" ]; then
  cmake -S "$root" -B "$root/$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >&2
fi
cmake --build "$root/$build" --target kda-bench >&2
cd "$root"
exec "$root/$build/src/cli/kda-bench" "$@"
