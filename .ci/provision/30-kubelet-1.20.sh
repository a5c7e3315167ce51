#!/usr/bin/env bash
# Kubelet 1.20.2, built from bookworm's `kubernetes` source package (its orig tarball carries the whole
# tree with vendor/) with bookworm's Go 1.19 in GOPATH mode (kubernetes-build.sh). On a cold cache it
# builds the cluster's components (35-cluster-1.20.sh) in the same go build, which is faster on 2
# cores than building them one after another; warm, nothing is rebuilt.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
source "$here/kubernetes-build.sh"
apt_install etcd-server containernetworking-plugins iptables openssl
ensure_kubernetes_binaries
record_system kubelet 1.20.2 "BIN=$KUBELET_OUT/kubelet" "PATCH=$(kubernetes_tree_patch_key)"
