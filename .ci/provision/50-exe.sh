#!/usr/bin/env bash
# The single executables' test (test/real/exe.integration.test.ts): qemu-user-static runs the arm64 file,
# and a bookworm arm64 sysroot (libc6, libstdc++6, libgcc-s1 unpacked with dpkg-deb, never installed:
# the machine keeps one architecture) gives it the dynamic loader and libraries the official node
# binary links against. Records the sysroot's path in
# $KUBELET_HASH_CACHE/arm64-sysroot.path for the test.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
apt_install qemu-user-static

SYSROOT="$KUBELET_HASH_CACHE/arm64-sysroot"
if [ ! -f "$SYSROOT/.unpacked" ]; then
  APT_ARM64="$KUBELET_HASH_CACHE/apt-arm64"
  mirror=$(debian_mirror)
  mkdir -p "$APT_ARM64/lists/partial" "$APT_ARM64/cache/archives/partial" "$APT_ARM64/debs"
  touch "$APT_ARM64/status"
  printf 'deb [arch=arm64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s bookworm main\n' "$mirror" \
    >"$APT_ARM64/sources.list"
  opts=(
    -o "Dir::Etc::SourceList=$APT_ARM64/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
    -o "Dir::State::Lists=$APT_ARM64/lists" -o "Dir::Cache=$APT_ARM64/cache"
    -o "Dir::State::status=$APT_ARM64/status" -o "APT::Architecture=arm64"
    -o "APT::Architectures=arm64" -o "Acquire::Languages=none" -o "APT::Sandbox::User=root"
  )
  apt-get "${opts[@]}" update -qq >&2
  (cd "$APT_ARM64/debs" && apt-get "${opts[@]}" download -qq libc6:arm64 libstdc++6:arm64 libgcc-s1:arm64 >&2)
  rm -rf "$SYSROOT" && mkdir -p "$SYSROOT"
  for deb in "$APT_ARM64/debs"/*_arm64.deb; do dpkg-deb -x "$deb" "$SYSROOT"; done
  touch "$SYSROOT/.unpacked"
fi
printf '%s\n' "$SYSROOT" >"$KUBELET_HASH_CACHE/arm64-sysroot.path"
log "arm64 sysroot in $SYSROOT"
