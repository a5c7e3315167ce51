#!/usr/bin/env bash
# A one-node Kubernetes 1.20.2 cluster's other components, for test/support/cluster.ts:
# - kube-apiserver, kube-controller-manager and kube-proxy built from the same bookworm `kubernetes`
#   source tree as the kubelet, in the same go build when the cache is cold (kubernetes-build.sh:
#   30 normally builds them; here they are built only if 30 has not). The tarball has no
#   pkg/generated/openapi/zz_generated.openapi.go, which the apiserver needs: it is generated
#   offline with the vendored openapi-gen, as the tree's build/root/Makefile.generated_files does.
# - kubectl as 55-kubectl.sh unpacks and records it (run from here), and installed with apt: etcd 3.4
#   (etcd-server), the CNI plugins (containernetworking-plugins), iptables and openssl (the tests make the cluster's certificates with it).
# The binaries are cached under $KUBELET_HASH_CACHE/cluster/, keyed like the kubelet (version, the
# orig tarball's sha256, the tree's patch, the Go version) plus a hash of the generation's inputs, so a
# second run rebuilds nothing.
set -euo pipefail
shopt -s inherit_errexit
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
source "$here/kubernetes-build.sh"
apt_install golang-1.19-go etcd-server containernetworking-plugins iptables openssl

# kubectl is 55-kubectl.sh's (bookworm's kubernetes-client, the same 1.20.2 tree, unpacked in one
# place for the agent's image and the cluster). 35 runs before 55, so it runs 55 here (warm: a version
# check) and takes the BIN 55 recorded.
bash "$here/55-kubectl.sh"
kubectl=$(sed -n 's/^BIN=//p' "$KUBELET_HASH_CACHE/systems/kubectl-1.20.2.env")

ensure_kubernetes_binaries
out=$CLUSTER_OUT
"$kubectl" version --client --short 2>/dev/null | grep -q 'v1.20.2' || { log "$kubectl is not 1.20.2"; exit 1; }

# The cluster's kubelet is 30's, which must carry the same patch (it decodes what the apiserver sends).
kubelet_env="$KUBELET_HASH_CACHE/systems/kubelet-1.20.2.env"
grep -qx "PATCH=$(kubernetes_tree_patch_key)" "$kubelet_env" 2>/dev/null ||
  { log "$kubelet_env is not a kubelet built with $(kubernetes_tree_patch_key) (run 30-kubelet-1.20.sh)"; exit 1; }
kubelet=$(sed -n 's/^BIN=//p' "$kubelet_env")
cni_dir=/usr/lib/cni
[ -x "$cni_dir/bridge" ] && [ -x "$cni_dir/host-local" ] && [ -x "$cni_dir/loopback" ] ||
  { log "containernetworking-plugins left no bridge/host-local/loopback in $cni_dir"; exit 1; }
etcd_version=$(etcd --version | sed -n 's/^etcd Version: //p')
record_system cluster 1.20.2 "BIN=$out/kube-apiserver" "APISERVER=$out/kube-apiserver" "CONTROLLER_MANAGER=$out/kube-controller-manager" \
  "PROXY=$out/kube-proxy" "KUBELET=$kubelet" "KUBECTL=$kubectl" "ETCD=$(command -v etcd)" \
  "ETCD_VERSION=$etcd_version" "CNI_BIN_DIR=$cni_dir" "IPTABLES=$(command -v iptables)"
