#!/usr/bin/env bash
# Builds the kernel library (libkda.so) of any git revision, for `kda-bench --before`:
#   scripts/build-rev.sh REV [OUTDIR]        e.g. scripts/build-rev.sh HEAD~1
# Checks REV out into a temporary git worktree (the working tree is not touched), configures it
# without tests and benchmarks, builds the `kda` target only, copies libkda.so to OUTDIR (default
# build-rev/REV/) and removes the worktree again, also on failure. Prints the library's path last.
#   KDA_CMAKE_ARGS   extra configure arguments, e.g. "-DKDA_SLOW_BUILD_NOOP_KERNELS=200"
#   KDA_BUILD_JOBS   parallel build jobs (default: all cores)
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: scripts/build-rev.sh REV [OUTDIR]" >&2
  exit 2
fi
rev=$1
root=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
sha=$(git -C "$root" rev-parse --verify --quiet "$rev^{commit}") || {
  echo "build-rev: '$rev' is not a commit of $root" >&2
  exit 2
}
out=${2:-$root/build-rev/$rev}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kda-build-rev.XXXXXX")
tree="$tmp/src"
cleanup() {
  git -C "$root" worktree remove --force "$tree" 2>/dev/null || true
  git -C "$root" worktree prune 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

git -C "$root" worktree add --detach --quiet "$tree" "$sha"
# The revision goes into the library's build id (kda_build_id), so results name what they ran.
# shellcheck disable=SC2086  # KDA_CMAKE_ARGS is a list of arguments
cmake -S "$tree" -B "$tmp/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKDA_BUILD_TESTS=OFF \
  -DKDA_BUILD_BENCHMARKS=OFF -DKDA_GIT_REVISION="$(git -C "$root" rev-parse --short=12 "$sha")" \
  ${KDA_CMAKE_ARGS:-} > "$tmp/configure.log" 2>&1 || { tail -30 "$tmp/configure.log" >&2; exit 1; }
cmake --build "$tmp/build" --target kda -j"${KDA_BUILD_JOBS:-$(nproc)}" > "$tmp/build.log" 2>&1 \
  || { grep -E "error" -A3 "$tmp/build.log" | head -40 >&2; exit 1; }
mkdir -p "$out"
cp "$tmp/build/kernels/libkda.so" "$out/libkda.so"
echo "build-rev: $rev ($sha) -> $out/libkda.so" >&2
echo "$out/libkda.so"
