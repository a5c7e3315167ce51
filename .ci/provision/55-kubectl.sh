#!/usr/bin/env bash
# kubectl 1.20.2 for the agent's image (scripts/build-image.ts, test/real/image.integration.test.ts) and the
# cluster (35-cluster-1.20.sh runs this first when kubectl is not yet recorded, and records its BIN):
# bookworm's kubernetes-client package (built from the same 1.20.2 tree as the kubelet; a static
# binary), downloaded with the machine's apt and unpacked with dpkg-deb, never installed (the
# machine's own kubectl stays as it is). Records kubectl 1.20.2.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
VERSION=1.20.5+really1.20.2-1.1+deb12u1
DIR="$KUBELET_HASH_CACHE/pkg/kubernetes-client_$VERSION"
if [ ! -f "$DIR/.unpacked" ]; then
  mkdir -p "$KUBELET_HASH_CACHE/debs"
  deb=$(find "$KUBELET_HASH_CACHE/debs" -maxdepth 1 -name "kubernetes-client_${VERSION}_*.deb" | head -n 1)
  if [ -z "$deb" ]; then
    (cd "$KUBELET_HASH_CACHE/debs" && apt-get -o APT::Sandbox::User=root download -qq "kubernetes-client=$VERSION" >&2)
    deb=$(find "$KUBELET_HASH_CACHE/debs" -maxdepth 1 -name "kubernetes-client_${VERSION}_*.deb" | head -n 1)
  fi
  [ -n "$deb" ] || { log "apt-get download kubernetes-client=$VERSION left no .deb"; exit 1; }
  rm -rf "$DIR" && mkdir -p "$DIR"
  dpkg-deb -x "$deb" "$DIR"
  touch "$DIR/.unpacked"
fi
"$DIR/usr/bin/kubectl" version --client | grep -q 'GitVersion:"v1.20.2"' || { log "$DIR/usr/bin/kubectl is not 1.20.2"; exit 1; }
record_system kubectl 1.20.2 "BIN=$DIR/usr/bin/kubectl"
