#!/usr/bin/env bash
# A one-node Kubernetes 1.20.2 cluster's other components, for test/support/cluster.ts:
# - kube-apiserver, kube-controller-manager and kube-proxy built from the same bookworm `kubernetes`
#   source tree as the kubelet (30-kubelet-1.20.sh; lib.sh kubernetes_tree, patch_kubernetes_tree)
#   with bookworm's Go 1.19 in GOPATH mode. The tarball has no pkg/generated/openapi/
#   zz_generated.openapi.go, which the apiserver needs: it is generated here offline with the
#   vendored openapi-gen over every package tagged +k8s:openapi-gen=, as the tree's
#   build/root/Makefile.generated_files (gen_openapi) does.
# - kubectl as 55-kubectl.sh unpacks and records it (run from here), and installed with apt: etcd 3.4
#   (etcd-server), the CNI plugins (containernetworking-plugins), iptables and openssl (the tests make the cluster's certificates with it).
# The binaries are cached under $KUBELET_HASH_CACHE/cluster/, keyed like the kubelet (version, the
# orig tarball's sha256, the tree's patch, the Go version) plus a hash of the generation's inputs, so a
# second run rebuilds nothing. Cold: ~1 min generation + ~10 min of builds on 2 cores.
set -euo pipefail
shopt -s inherit_errexit
source "$(dirname "$0")/lib.sh"
apt_install golang-go etcd-server containernetworking-plugins iptables openssl

# kubectl is 55-kubectl.sh's (bookworm's kubernetes-client, the same 1.20.2 tree, unpacked in one
# place for the agent's image and the cluster). 35 runs before 55, so it runs 55 here (warm: a version
# check) and takes the BIN 55 recorded.
bash "$(dirname "$0")/55-kubectl.sh"
kubectl=$(sed -n 's/^BIN=//p' "$KUBELET_HASH_CACHE/systems/kubectl-1.20.2.env")

gopath=$(kubernetes_tree)
patch_kubernetes_tree "$gopath"
tree="$gopath/src/k8s.io/kubernetes"
tarball=$(ls "$KUBELET_HASH_CACHE/src/kubernetes_${KUBERNETES_SOURCE_VERSION}"/kubernetes_*.orig.tar.gz | head -n 1)
source_hash=$(sha256sum "$tarball" | cut -c1-16)
go_version=$(go env GOVERSION)
export GOPATH="$gopath" GO111MODULE=off CGO_ENABLED=0 GOFLAGS= GOCACHE="$KUBELET_HASH_CACHE/go-build" GOTOOLCHAIN=local

# The packages openapi-gen reads, as the Makefile finds them: every directory of the project (vendor/
# itself left out, staging/src named as its vendor/ link) with a Go file tagged +k8s:openapi-gen=,
# less the code generator's examples and the sample apiserver, which have outputs of their own.
openapi_dirs() {
  (cd "$tree" && find -H . \( -path ./_\* -o -path ./.\* -o -path ./vendor \) -prune -o \
    -type f -name '*.go' -print0 |
    xargs -0 grep -l '^// *+k8s:openapi-gen=' |
    sed -e 's|/[^/]*$||' -e 's|^\./||' -e 's|^staging/src/|vendor/|' |
    grep -v -e '^vendor/k8s.io/code-generator\(/\|$\)' -e '^vendor/k8s.io/sample-apiserver\(/\|$\)' |
    LC_ALL=C sort -u)
}
OPENAPI_PKG=k8s.io/kubernetes/pkg/generated/openapi
OPENAPI_FLAGS=(-p "$OPENAPI_PKG" -O zz_generated.openapi -h vendor/k8s.io/code-generator/hack/boilerplate.go.txt)
dirs=$(openapi_dirs)
[ -n "$dirs" ] || { log "no +k8s:openapi-gen= package found in $tree"; exit 1; }
gen_key=$(printf '%s\n' "${OPENAPI_FLAGS[*]}" "$dirs" | sha256sum | cut -c1-12)
out="$KUBELET_HASH_CACHE/cluster/1.20.2-$source_hash-$(kubernetes_tree_patch_key)-openapi$gen_key-$go_version"
generated="$tree/pkg/generated/openapi/zz_generated.openapi.go"

generate_openapi() {
  local started=$SECONDS tmp
  tmp=$(mktemp -d "$KUBELET_HASH_CACHE/.openapi.XXXXXX")
  (cd "$tree" && go build -o "$tmp/openapi-gen" ./vendor/k8s.io/kube-openapi/cmd/openapi-gen)
  # Known API-rule violations go to a report file (the Makefile diffs it against its exceptions
  # list; a report to stdout would fail the run). Output under a private base, moved in when whole.
  (cd "$tree" && "$tmp/openapi-gen" --logtostderr -v 0 \
    -i "$(printf 'k8s.io/kubernetes/%s\n' $dirs | paste -sd, -)" \
    --output-base "$tmp/out" -r "$tmp/violations.report" "${OPENAPI_FLAGS[@]}")
  mv "$tmp/out/$OPENAPI_PKG/zz_generated.openapi.go" "$generated"
  printf '%s\n' "$gen_key" >"$tree/pkg/generated/openapi/.kubelet-hash-generated"
  rm -rf "$tmp"
  log "generated $generated in $((SECONDS - started))s"
}

# Version stamps as hack/lib/version.sh sets them (GOPATH mode: vendored packages carry the
# k8s.io/kubernetes/vendor/ prefix); without them every binary reports v0.0.0-master.
ldflags=""
for pkg in k8s.io/kubernetes/vendor/k8s.io/component-base/version k8s.io/kubernetes/vendor/k8s.io/client-go/pkg/version; do
  ldflags="$ldflags -X $pkg.gitVersion=v1.20.2 -X $pkg.gitMajor=1 -X $pkg.gitMinor=20 -X $pkg.gitTreeState=clean"
done

build_component() {
  local name=$1 started=$SECONDS
  [ -x "$out/$name" ] && return 0
  mkdir -p "$out"
  (cd "$tree" && go build -ldflags "$ldflags" -o "$out/$name.new" "./cmd/$name")
  mv "$out/$name.new" "$out/$name"
  log "built $name in $((SECONDS - started))s"
}

if [ ! -x "$out/kube-apiserver" ] || [ ! -x "$out/kube-controller-manager" ] || [ ! -x "$out/kube-proxy" ]; then
  if [ "$(cat "$tree/pkg/generated/openapi/.kubelet-hash-generated" 2>/dev/null)" != "$gen_key" ] || [ ! -f "$generated" ]; then
    generate_openapi
  fi
  build_component kube-apiserver
  build_component kube-controller-manager
  build_component kube-proxy
fi
for name in kube-apiserver kube-controller-manager kube-proxy; do
  "$out/$name" --version | grep -qx 'Kubernetes v1.20.2' || { log "$out/$name does not report v1.20.2"; exit 1; }
done
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
