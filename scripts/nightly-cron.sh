#!/usr/bin/env bash
# The nightly regression run of one GPU machine, for cron or a CI job on a GPU runner
# (docs/nightly.md):
#   scripts/nightly-cron.sh [more kda-bench nightly options]
# Builds kda-bench and libkda.so from the checked-out tree (incrementally), finds this machine's GPU
# class (`kda-bench nightly --print-slug`), runs `kda-bench nightly --retake-throttled` against
# results/<gpu-class-slug>/baseline.json, keeps the output in logs/nightly/<slug>/<UTC time>.log,
# and exits with nightly's code: 0 no regression, 1 regression (or build failure), 2 no baseline
# for this GPU class or bad options, 3 no GPU or no kernel library.
#   KDA_BUILD_DIR      build folder (default: build-nightly)
#   KDA_NIGHTLY_LOGS   log folder (default: logs/nightly)
# Example crontab line, 03:00 every night:
#   0 3 * * * cd /srv/kda-bench && git pull -q --ff-only && scripts/nightly-cron.sh >/dev/null 2>&1
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
build=${KDA_BUILD_DIR:-build-nightly}
logs=${KDA_NIGHTLY_LOGS:-logs/nightly}
stamp=$(date -u +%Y%m%d-%H%M%S)
mkdir -p "$logs"

build_log="$logs/build-$stamp.log"
if ! { scripts/install-deps.sh &&
       cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKDA_BUILD_TESTS=OFF \
         -DKDA_BUILD_BENCHMARKS=OFF &&
       cmake --build "$build" --target kda-bench; } > "$build_log" 2>&1; then
  echo "nightly-cron: build failed, see $build_log" >&2
  tail -20 "$build_log" >&2
  exit 1
fi
rm -f "$build_log" # kept only when the build fails
bench="$build/src/cli/kda-bench"

slug=$("$bench" --log-level warn nightly --print-slug)
rc=$?
if [ $rc -ne 0 ]; then
  echo "nightly-cron: cannot tell this machine's GPU class (kda-bench exit $rc): $slug" >&2
  exit $rc
fi
mkdir -p "$logs/$slug"
log="$logs/$slug/$stamp.log"
{
  echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(hostname) $(git rev-parse --short=12 HEAD 2>/dev/null)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader 2>&1
} > "$log"
"$bench" nightly --retake-throttled "$@" 2>&1 | tee -a "$log"
rc=${PIPESTATUS[0]}
echo "nightly-cron: $slug: exit $rc (log $log)" >&2
exit "$rc"
