#!/usr/bin/env bash
# The containerd matrix (1.6.20 from bookworm, installed by 10-bookworm-systems.sh; 1.7.24 from trixie
# and 2.1.9 from sid, unpacked with dpkg-deb, never installed) and bookworm's dockerd: records where
# each lives for the tests' registry of real systems (test/support/real-systems.ts). Each containerd
# record also names Debian's static busybox, which the tests wrap into a local image (no registry).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
apt_install busybox-static
busybox=$(command -v busybox)

# A bookworm system installed by apt: recorded at the version its binary reports.
record_installed() {
  local name=$1 bin=$2 version
  shift 2
  version=$("$bin" --version | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -n 1)
  record_system "$name" "$version" "BIN=$bin" "$@"
}
record_installed containerd "$(command -v containerd)" "BUSYBOX=$busybox"
record_installed dockerd "$(command -v dockerd)"

# Newer releases: the binaries, their shims and ctr run from the unpacked package's usr/bin.
for pkg in 1.7.24~ds1-6+deb13u1 2.1.9+ds1-5; do
  dir=$(unpack_package containerd "$pkg")
  "$dir/usr/bin/containerd" --version >&2
  record_system containerd "${pkg%%[~+]*}" "BIN=$dir/usr/bin/containerd" "BUSYBOX=$busybox"
done
