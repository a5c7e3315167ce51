#!/usr/bin/env bash
# Kubelet 1.20.2, built from bookworm's `kubernetes` source package (its orig tarball carries the whole
# tree with vendor/) with bookworm's Go 1.19 in GOPATH mode.
# The binary is cached under $KUBELET_HASH_CACHE/kubelet/, keyed by the version, the orig tarball's
# sha256, the tree's patch (lib.sh patch_kubernetes_tree: the kubelet decodes API objects from an
# apiserver with the patched reflect2) and the Go version, so a second run on the same machine does
# not rebuild (~4 min cold).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
apt_install golang-go

gopath=$(kubernetes_tree)
patch_kubernetes_tree "$gopath"
tree="$gopath/src/k8s.io/kubernetes"
tarball=$(ls "$KUBELET_HASH_CACHE/src/kubernetes_${KUBERNETES_SOURCE_VERSION}"/kubernetes_*.orig.tar.gz | head -n 1)
source_hash=$(sha256sum "$tarball" | cut -c1-16)
go_version=$(go env GOVERSION)
out="$KUBELET_HASH_CACHE/kubelet/1.20.2-$source_hash-$(kubernetes_tree_patch_key)-$go_version"

if [ ! -x "$out/kubelet" ]; then
  log "building kubelet 1.20.2 in $tree (about 4 minutes on 2 cores)"
  mkdir -p "$out"
  # Version stamps as hack/lib/version.sh sets them (GOPATH mode: vendored packages carry the
  # k8s.io/kubernetes/vendor/ prefix); without them the kubelet reports v0.0.0-master.
  ldflags=""
  for pkg in k8s.io/kubernetes/vendor/k8s.io/component-base/version k8s.io/kubernetes/vendor/k8s.io/client-go/pkg/version; do
    ldflags="$ldflags -X $pkg.gitVersion=v1.20.2 -X $pkg.gitMajor=1 -X $pkg.gitMinor=20 -X $pkg.gitTreeState=clean"
  done
  (cd "$tree" && GOPATH="$gopath" GO111MODULE=off CGO_ENABLED=0 GOFLAGS= GOCACHE="$KUBELET_HASH_CACHE/go-build" \
    go build -ldflags "$ldflags" -o "$out/kubelet.new" ./cmd/kubelet)
  mv "$out/kubelet.new" "$out/kubelet"
fi
"$out/kubelet" --version | grep -qx 'Kubernetes v1.20.2' || { log "kubelet in $out does not report v1.20.2"; exit 1; }
record_system kubelet 1.20.2 "BIN=$out/kubelet" "PATCH=$(kubernetes_tree_patch_key)"
