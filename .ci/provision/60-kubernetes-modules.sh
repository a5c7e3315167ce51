#!/usr/bin/env bash
# Kubernetes releases built from the Go module proxy (no source tree, no vendor/): the kubelet,
# kube-apiserver and kube-controller-manager of each release in KUBERNETES_MODULE_RELEASES, and the
# etcd each apiserver's go.mod requires. Everything lands under $KUBELET_HASH_CACHE:
#   gomod/                                   the module cache (GOMODCACHE), shared by every build
#   go-build/                                the build cache (GOCACHE), shared with the 1.20 builds
#   kubernetes-modules/vX-GO-TAGS/           one release: kubelet, kube-apiserver, kube-controller-manager,
#                                            and build/ with the generated go.mod, go.sum and tools.go
#   etcd-modules/vX-GO/etcd                  one etcd server
# A directory is moved into place only when it is whole; its record (record_system) is written last.
# Each release builds as a dependency of a small module of ours (kubernetes-modules-lib.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
# GO, go_pinned, toolchain_for, write_build_module: the build module of each release.
source "$here/kubernetes-modules-lib.sh"

# Oldest first is not the order: the judges that exist need 1.31 and 1.30 soonest; 1.37.2 is the newest
# 1.37 patch the module proxy serves (checked when this was written). 1.33.13 (the newest 1.33 patch
# served) is the control plane of the 1.32 → 1.33 crossing and a dry-run judge of its own.
: "${KUBERNETES_MODULE_RELEASES:=1.31.14 1.30.14 1.37.2 1.33.13}"
# Releases whose kubelet alone is built (about half a whole release's build on 2 cores): the nodes of
# crossings whose control plane is another release's (the newest patches served: 1.32.13, 1.34.4, 1.35.4).
: "${KUBERNETES_KUBELET_RELEASES:=1.32.13 1.34.4 1.35.4}"

# A build's private directory, removed if the script stops before moving it into place (a concurrent
# run's own are left alone).
# Sets BUILD_DIR (a new directory under $1). After the move into place its path is gone, so the trap
# removes nothing then. Set again in each (sub)shell that makes one: command substitutions reset traps.
BUILD_DIRS=()
private_build_dir() {
  mkdir -p "$1"
  BUILD_DIR=$(mktemp -d "$1/.build.XXXXXX")
  chmod 755 "$BUILD_DIR"
  BUILD_DIRS+=("$BUILD_DIR")
  trap 'rm -rf "${BUILD_DIRS[@]}"' EXIT
}

# kubernetes_release VERSION [kubelet]: builds (unless cached) and records one release: its kubelet,
# kube-apiserver and kube-controller-manager, or with `kubelet` its kubelet alone (recorded as
# kubernetes-kubelet VERSION).
kubernetes_release() {
  local version=$1 only=${2:-} commands names v minor info gomod srcdir go_directive toolchain go_version tags key out tmp
  local ldflags pkg name started=$SECONDS etcd_version etcd_out substitutes
  v="v$version"
  minor=${version#*.}
  minor=${minor%%.*}
  info=$(GOTOOLCHAIN=local "$GO" mod download -json "k8s.io/kubernetes@$v")
  gomod=$(jq -r .GoMod <<<"$info")
  srcdir=$(jq -r .Dir <<<"$info")
  go_directive=$(GOTOOLCHAIN=local "$GO" mod edit -json "$gomod" | jq -r .Go)
  toolchain=$(toolchain_for "$go_directive")
  go_version=$(go_pinned "$toolchain" env GOVERSION)
  tags=$(release_tags "$srcdir")
  key="$v-$go_version-$tags"
  names="kubelet kube-apiserver kube-controller-manager"
  if [ "$only" = kubelet ]; then
    key="$key-kubelet"
    names=kubelet
  fi
  commands=()
  for name in $names; do commands+=("k8s.io/kubernetes/cmd/$name"); done
  out="$KUBELET_HASH_CACHE/kubernetes-modules/$key"
  if [ ! -x "$out/kubelet" ]; then
    log "building $names $v with $go_version (go $go_directive, GOTOOLCHAIN=$toolchain, tags $tags)"
    private_build_dir "$KUBELET_HASH_CACHE/kubernetes-modules"
    tmp=$BUILD_DIR
    write_build_module "$tmp/build" k8s.io/kubernetes "$v" "v0.$minor.${version##*.}" "$gomod" "${commands[@]}"
    (cd "$tmp/build" && go_pinned "$toolchain" mod tidy)
    # Version stamps as hack/lib/version.sh sets them; without them every binary reports v0.0.0-master.
    ldflags="-s -w"
    for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
      ldflags="$ldflags -X $pkg.gitVersion=$v -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
    done
    # One go build for the three commands: on 2 cores it keeps both busy through each one's serial tail.
    (cd "$tmp/build" && go_pinned "$toolchain" build -trimpath -tags "$tags" -ldflags "$ldflags" -o "$tmp/" "${commands[@]}")
    rm -rf "$out" && mv "$tmp" "$out"
    log "built $names $v in $((SECONDS - started))s"
  fi
  for name in $names; do
    [ "$("$out/$name" --version)" = "Kubernetes $v" ] || { log "$out/$name does not report $v"; return 1; }
  done
  if [ "$only" = kubelet ]; then
    record_system kubernetes-kubelet "$version" "BIN=$out/kubelet" "KUBELET=$out/kubelet" "GO=$go_version" \
      "TAGS=$tags" "BUILD_MODULE=$out/build"
    return 0
  fi
  # The etcd of the client this apiserver is built with (its go.mod's go.etcd.io/etcd/client/v3).
  etcd_version=$(GOTOOLCHAIN=local "$GO" mod edit -json "$gomod" | jq -r '.Require[] | select(.Path == "go.etcd.io/etcd/client/v3") | .Version')
  [ -n "$etcd_version" ] || { log "$v requires no go.etcd.io/etcd/client/v3"; return 1; }
  etcd_out=$(etcd_release "$etcd_version")
  # Staging modules linked into the binaries at another version than the release's (staging_release),
  # from their build information (`=>` lines: the replacement a dependency was built from), or "none".
  substitutes=$(go_pinned "$toolchain" version -m "$out/kubelet" "$out/kube-apiserver" "$out/kube-controller-manager" |
    awk -v want="v0.$minor.${version##*.}" '$1 == "=>" && $2 ~ /^k8s\.io\// && $3 != want { print $2 "@" $3 }' | sort -u | paste -sd, -)
  record_system kubernetes "$version" "BIN=$out/kubelet" "KUBELET=$out/kubelet" "APISERVER=$out/kube-apiserver" \
    "CONTROLLER_MANAGER=$out/kube-controller-manager" "ETCD=$etcd_out/etcd" "ETCD_VERSION=${etcd_version#v}" \
    "GO=$go_version" "TAGS=$tags" "BUILD_MODULE=$out/build" "SUBSTITUTES=${substitutes:-none}"
}

# etcd_release VERSION: builds (unless cached) the etcd server of go.etcd.io/etcd/server/v3@VERSION;
# prints its directory. The server module's etcdmain is the whole command (the etcd repository's root
# main package only calls it), so our module's main does the same.
etcd_release() {
  local v=$1 info gomod go_directive toolchain go_version out tmp started=$SECONDS
  info=$(GOTOOLCHAIN=local "$GO" mod download -json "go.etcd.io/etcd/server/v3@$v")
  gomod=$(jq -r .GoMod <<<"$info")
  go_directive=$(GOTOOLCHAIN=local "$GO" mod edit -json "$gomod" | jq -r .Go)
  toolchain=$(toolchain_for "$go_directive")
  go_version=$(go_pinned "$toolchain" env GOVERSION)
  out="$KUBELET_HASH_CACHE/etcd-modules/$v-$go_version"
  if [ ! -x "$out/etcd" ]; then
    log "building etcd $v with $go_version"
    private_build_dir "$KUBELET_HASH_CACHE/etcd-modules"
    tmp=$BUILD_DIR
    mkdir -p "$tmp/build"
    printf 'module kubelet-hash.invalid/etcd\n\ngo %s\n\nrequire go.etcd.io/etcd/server/v3 %s\n' "$go_directive" "$v" >"$tmp/build/go.mod"
    printf '// etcd: the server module'"'"'s etcdmain, as the etcd command runs it.\npackage main\n\nimport (\n\t"os"\n\n\t"go.etcd.io/etcd/server/v3/etcdmain"\n)\n\nfunc main() { etcdmain.Main(os.Args) }\n' >"$tmp/build/main.go"
    (cd "$tmp/build" && go_pinned "$toolchain" mod tidy >&2)
    (cd "$tmp/build" && go_pinned "$toolchain" build -trimpath -ldflags "-s -w" -o "$tmp/etcd" . >&2)
    rm -rf "$out" && mv "$tmp" "$out"
    log "built etcd $v in $((SECONDS - started))s"
  fi
  # Read whole before matching: `| grep -q` would stop reading early, and etcd's SIGPIPE fail the pipe.
  case $'\n'"$("$out/etcd" --version)"$'\n' in
    *$'\n'"etcd Version: ${v#v}"$'\n'*) ;;
    *) log "$out/etcd does not report ${v#v}"; return 1 ;;
  esac
  printf '%s\n' "$out"
}

# A one-node cluster crossing FROM → TO (test/support/cluster.ts): both releases' components, the TO
# release's etcd (the newer; both apiservers speak to it), kubectl 1.20.2 (55-kubectl.sh: the
# judges only create and get pods) and bookworm's CNI plugins. Recorded when both releases are.
# Usage: cluster_crossing FROM TO
cluster_crossing() {
  local from=$1 to=$2 f t kubectl
  f="$KUBELET_HASH_CACHE/systems/kubernetes-$from.env"
  t="$KUBELET_HASH_CACHE/systems/kubernetes-$to.env"
  [ -f "$f" ] && [ -f "$t" ] || return 0
  kubectl=$(sed -n 's/^BIN=//p' "$KUBELET_HASH_CACHE/systems/kubectl-1.20.2.env" 2>/dev/null || true)
  [ -n "$kubectl" ] || { log "no kubectl 1.20.2 recorded (run 55-kubectl.sh): cluster $from-$to not recorded"; return 0; }
  apt_install containernetworking-plugins iptables openssl
  record_system cluster "$from-$to" "BIN=$(sed -n 's/^APISERVER=//p' "$t")" \
    "FROM_RELEASE=$from" "FROM_KUBELET=$(sed -n 's/^KUBELET=//p' "$f")" \
    "FROM_APISERVER=$(sed -n 's/^APISERVER=//p' "$f")" "FROM_CONTROLLER_MANAGER=$(sed -n 's/^CONTROLLER_MANAGER=//p' "$f")" \
    "TO_RELEASE=$to" "TO_KUBELET=$(sed -n 's/^KUBELET=//p' "$t")" \
    "TO_APISERVER=$(sed -n 's/^APISERVER=//p' "$t")" "TO_CONTROLLER_MANAGER=$(sed -n 's/^CONTROLLER_MANAGER=//p' "$t")" \
    "ETCD=$(sed -n 's/^ETCD=//p' "$t")" "ETCD_VERSION=$(sed -n 's/^ETCD_VERSION=//p' "$t")" \
    "KUBECTL=$kubectl" "CNI_BIN_DIR=/usr/lib/cni"
}

# A one-node cluster of one release (test/support/cluster.ts): its components and etcd, kubectl 1.20.2
# and bookworm's CNI plugins, as for a crossing. Recorded when the release is.
# Usage: cluster_release VERSION
cluster_release() {
  local version=$1 r kubectl
  r="$KUBELET_HASH_CACHE/systems/kubernetes-$version.env"
  [ -f "$r" ] || return 0
  kubectl=$(sed -n 's/^BIN=//p' "$KUBELET_HASH_CACHE/systems/kubectl-1.20.2.env" 2>/dev/null || true)
  [ -n "$kubectl" ] || { log "no kubectl 1.20.2 recorded (run 55-kubectl.sh): cluster $version not recorded"; return 0; }
  apt_install containernetworking-plugins iptables openssl
  record_system cluster "$version" "BIN=$(sed -n 's/^APISERVER=//p' "$r")" "RELEASE=$version" \
    "KUBELET=$(sed -n 's/^KUBELET=//p' "$r")" "APISERVER=$(sed -n 's/^APISERVER=//p' "$r")" \
    "CONTROLLER_MANAGER=$(sed -n 's/^CONTROLLER_MANAGER=//p' "$r")" \
    "ETCD=$(sed -n 's/^ETCD=//p' "$r")" "ETCD_VERSION=$(sed -n 's/^ETCD_VERSION=//p' "$r")" \
    "KUBECTL=$kubectl" "CNI_BIN_DIR=/usr/lib/cni"
}

# A one-node cluster whose control plane (apiserver, controller manager, etcd) is CONTROL_PLANE's
# throughout while its kubelet crosses FROM → TO: an operator's order (control plane first, then the
# nodes), with kubelets built alone (kubernetes-kubelet records). Recorded as cluster FROM-TO with
# FROM_APISERVER = TO_APISERVER (the crossing suite's control-plane step then changes nothing) and
# CONTROL_PLANE_RELEASE. Usage: cluster_kubelet_crossing FROM TO CONTROL_PLANE
cluster_kubelet_crossing() {
  local from=$1 to=$2 plane=$3 f t p kubectl kubelet_of
  kubelet_of() {
    local r
    for r in "$KUBELET_HASH_CACHE/systems/kubernetes-kubelet-$1.env" "$KUBELET_HASH_CACHE/systems/kubernetes-$1.env"; do
      [ -f "$r" ] && { sed -n 's/^KUBELET=//p' "$r"; return 0; }
    done
  }
  p="$KUBELET_HASH_CACHE/systems/kubernetes-$plane.env"
  f=$(kubelet_of "$from")
  t=$(kubelet_of "$to")
  [ -f "$p" ] && [ -n "$f" ] && [ -n "$t" ] || return 0
  kubectl=$(sed -n 's/^BIN=//p' "$KUBELET_HASH_CACHE/systems/kubectl-1.20.2.env" 2>/dev/null || true)
  [ -n "$kubectl" ] || { log "no kubectl 1.20.2 recorded (run 55-kubectl.sh): cluster $from-$to not recorded"; return 0; }
  apt_install containernetworking-plugins iptables openssl
  record_system cluster "$from-$to" "BIN=$(sed -n 's/^APISERVER=//p' "$p")" "CONTROL_PLANE_RELEASE=$plane" \
    "FROM_RELEASE=$from" "FROM_KUBELET=$f" \
    "FROM_APISERVER=$(sed -n 's/^APISERVER=//p' "$p")" "FROM_CONTROLLER_MANAGER=$(sed -n 's/^CONTROLLER_MANAGER=//p' "$p")" \
    "TO_RELEASE=$to" "TO_KUBELET=$t" \
    "TO_APISERVER=$(sed -n 's/^APISERVER=//p' "$p")" "TO_CONTROLLER_MANAGER=$(sed -n 's/^CONTROLLER_MANAGER=//p' "$p")" \
    "ETCD=$(sed -n 's/^ETCD=//p' "$p")" "ETCD_VERSION=$(sed -n 's/^ETCD_VERSION=//p' "$p")" \
    "KUBECTL=$kubectl" "CNI_BIN_DIR=/usr/lib/cni"
}

for release in $KUBERNETES_MODULE_RELEASES; do
  kubernetes_release "$release"
done
for release in $KUBERNETES_KUBELET_RELEASES; do
  kubernetes_release "$release" kubelet
done
cluster_crossing 1.30.14 1.31.14
cluster_release 1.37.2
cluster_release 1.33.13
cluster_kubelet_crossing 1.32.13 1.33.13 1.33.13
cluster_kubelet_crossing 1.34.4 1.35.4 1.37.2
