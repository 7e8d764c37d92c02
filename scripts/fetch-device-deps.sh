#!/usr/bin/env bash
# For building ON the device (no network there): downloads the header-only Debian packages the
# device image may lack and extracts them into .deps/ (git-ignored), to be carried with the run.
# Configure there with -DCMAKE_PREFIX_PATH=$PWD/.deps/usr (docs/device.md).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$root/.deps/debs"
cd "$root/.deps/debs"
apt-get download nlohmann-json3-dev libcli11-dev >/dev/null
for deb in *.deb; do dpkg -x "$deb" "$root/.deps"; done
echo "extracted into $root/.deps/usr: $(ls "$root/.deps/usr/include" | tr '\n' ' ')"
