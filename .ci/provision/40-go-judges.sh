#!/usr/bin/env bash
# Go judges of ours, built only from Debian packages, that tests run beside the project's own code:
# - bbolt-check: real bbolt 1.3.6 (bookworm's golang-github-coreos-bbolt-dev, the bbolt containerd
#   1.6.20 is built with) checks a meta.db (tx.Check) and dumps the stored hashes;
# - hash-judge-1.20: kubelet 1.20.2's own HashContainer, built inside bookworm's kubernetes source
#   tree (lib.sh kubernetes_tree) with bookworm's Go 1.19;
# - hash-judge-1.36: the 1.36 hash over sid's golang-k8s-api-dev 0.36.4 (the real v1.Container),
#   built with sid's Go 1.27 unpacked (never installed).
# Sources: test/support/go/NAME/main.go (the hash judges also hash-judge-protocol/protocol.go).
# Each binary is cached in $KUBELET_HASH_CACHE/go-judges/
# NAME-VERSIONS-SRC/ (VERSIONS: the packages it is built from; SRC: the first 12 hex digits of the
# SHA-256 of those sources), which is where test/support/go-judges.ts looks: a changed source is rebuilt,
# never run stale. Binaries never go into the clone.
set -euo pipefail
# Command substitutions below call functions that must stop at the first failure too.
shopt -s inherit_errexit
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
GO_SRC=$(cd "$here/../../test/support/go" && pwd)
JUDGES="$KUBELET_HASH_CACHE/go-judges"
mkdir -p "$JUDGES"
export GOCACHE="$KUBELET_HASH_CACHE/go-build" GOFLAGS= GO111MODULE=off CGO_ENABLED=0 GOTOOLCHAIN=local

# A judge's sources: its main.go, and for the hash judges the protocol they share (built in beside it).
judge_sources() {
  printf '%s\n' "$GO_SRC/$1/main.go"
  case $1 in hash-judge-*) printf '%s\n' "$GO_SRC/hash-judge-protocol/protocol.go" ;; esac
}
source_key() { judge_sources "$1" | xargs cat | sha256sum | cut -c1-12; }
installed_version() { dpkg-query -W -f '${Version}' "$1"; }

# install_judge NAME VERSIONS BUILD...: runs BUILD (which writes the binary to $out_tmp/NAME) unless
# the keyed directory already holds it; the directory appears only once complete.
install_judge() {
  local name=$1 versions=$2 dir
  shift 2
  dir="$JUDGES/$name-$versions-$(source_key "$name")"
  if [ -x "$dir/$name" ]; then
    log "$name: cached ($dir)"
    return 0
  fi
  out_tmp=$(mktemp -d "$JUDGES/.$name.XXXXXX")
  local started=$SECONDS
  "$@"
  printf '%s\n' "$versions" >"$out_tmp/version"
  rm -rf "$dir" && mv "$out_tmp" "$dir"
  log "$name: built in $((SECONDS - started))s ($dir)"
}

# --- bbolt-check: GOPATH = a private src dir for our program + Debian's /usr/share/gocode --------
apt_install golang-1.19-go golang-github-coreos-bbolt-dev
build_bbolt_check() {
  local gopath
  gopath=$(mktemp -d "$JUDGES/.gopath-bbolt.XXXXXX")
  mkdir -p "$gopath/src/kubelet-hash/bbolt-check"
  cp "$GO_SRC/bbolt-check/main.go" "$gopath/src/kubelet-hash/bbolt-check/"
  (cd "$gopath/src/kubelet-hash/bbolt-check" && GOPATH="$gopath:/usr/share/gocode" go119 build -o "$out_tmp/bbolt-check" .)
  rm -rf "$gopath"
}
install_judge bbolt-check "bbolt$(installed_version golang-github-coreos-bbolt-dev)-go$(installed_version golang-1.19-go)" \
  build_bbolt_check

# --- hash-judge-1.20: inside Kubernetes 1.20.2's tree, so its vendor/ and staging types resolve ----
build_judge_120() {
  local gopath tree pkg
  gopath=$(kubernetes_tree)
  tree="$gopath/src/k8s.io/kubernetes"
  # A package directory of our own inside the shared cached tree, removed again after the build.
  pkg="cmd/zz-kubelet-hash-judge-$$"
  mkdir -p "$tree/$pkg"
  judge_sources hash-judge-1.20 | xargs cp -t "$tree/$pkg/"
  (cd "$tree" && GOPATH="$gopath" go119 build -o "$out_tmp/hash-judge-1.20" "./$pkg") || {
    rm -rf "${tree:?}/$pkg"
    return 1
  }
  rm -rf "${tree:?}/$pkg"
}
install_judge hash-judge-1.20 "k8s$KUBERNETES_SOURCE_VERSION-go$(installed_version golang-1.19-go)" build_judge_120

# --- hash-judge-1.36: sid's k8s.io/api 0.36.4 and its golang-*-dev closure, Go 1.27 from sid ------
GO127_VERSION=1.27.3-1
K8S_API_VERSION=0.36.4-1
K8S_APIMACHINERY_VERSION=0.36.4-3
SPEW_VERSION=1.1.1-7

# Go 1.27: the compiler and its standard library sources are two packages; one tree holds both.
go127_root() {
  local root="$JUDGES/go-$GO127_VERSION"
  if [ ! -f "$root/.complete" ]; then
    local go src tmp
    go=$(unpack_package golang-1.27-go "$GO127_VERSION")
    src=$(unpack_package golang-1.27-src "$GO127_VERSION")
    tmp=$(mktemp -d "$JUDGES/.go127.XXXXXX")
    cp -a "$go/usr" "$src/usr" "$tmp/"
    touch "$tmp/.complete"
    rm -rf "$root" && mv "$tmp" "$root"
  fi
  printf '%s\n' "$root/usr/lib/go-1.27"
}

# The golang-*-dev packages apt would install for the three (resolved against sid, never
# installed), unpacked and merged into one GOPATH keyed by the exact list of name=version.
k8s_api_136_gopath() {
  local list key gopath tmp name version dir
  private_apt_update
  # shellcheck disable=SC2046
  list=$(apt-get $(private_apt_opts) install -s --no-install-recommends \
    "golang-k8s-api-dev=$K8S_API_VERSION" "golang-k8s-apimachinery-dev=$K8S_APIMACHINERY_VERSION" \
    "golang-github-davecgh-go-spew-dev=$SPEW_VERSION" 2>/dev/null |
    awk '$1 == "Inst" && $2 ~ /^golang-.*-dev$/ { v = $3; gsub(/[()]/, "", v); print $2 "=" v }' | sort)
  [ -n "$list" ] || { log "could not resolve golang-k8s-api-dev $K8S_API_VERSION's dependencies"; return 1; }
  key=$(printf '%s\n' "$list" | sha256sum | cut -c1-12)
  gopath="$JUDGES/gopath-k8s-api-$K8S_API_VERSION-$key"
  if [ ! -f "$gopath/.complete" ]; then
    # One apt-get download for every package not yet unpacked (one call per package is slow).
    local wanted=()
    while IFS== read -r name version; do
      [ -f "$KUBELET_HASH_CACHE/pkg/${name}_${version}/.unpacked" ] || wanted+=("$name=$version")
    done <<<"$list"
    if [ "${#wanted[@]}" -gt 0 ]; then
      mkdir -p "$KUBELET_HASH_CACHE/debs"
      # shellcheck disable=SC2046
      (cd "$KUBELET_HASH_CACHE/debs" && apt-get $(private_apt_opts) download -qq "${wanted[@]}" >&2)
    fi
    tmp=$(mktemp -d "$JUDGES/.gopath136.XXXXXX")
    mkdir -p "$tmp/src"
    while IFS== read -r name version; do
      dir=$(unpack_package "$name" "$version")
      [ -d "$dir/usr/share/gocode/src" ] && cp -a "$dir/usr/share/gocode/src/." "$tmp/src/"
    done <<<"$list"
    printf '%s\n' "$list" >"$tmp/packages"
    touch "$tmp/.complete"
    rm -rf "$gopath" && mv "$tmp" "$gopath"
  fi
  printf '%s\n' "$gopath"
}

build_judge_136() {
  local goroot gopath
  goroot=$(go127_root)
  gopath=$(k8s_api_136_gopath)
  rm -rf "$gopath/src/kubelet-hash" && mkdir -p "$gopath/src/kubelet-hash/hash-judge-1.36"
  judge_sources hash-judge-1.36 | xargs cp -t "$gopath/src/kubelet-hash/hash-judge-1.36/"
  (cd "$gopath/src/kubelet-hash/hash-judge-1.36" &&
    GOROOT="$goroot" GOPATH="$gopath" "$goroot/bin/go" build -o "$out_tmp/hash-judge-1.36" .)
  rm -rf "$gopath/src/kubelet-hash"
}
install_judge hash-judge-1.36 "api$K8S_API_VERSION-apimachinery$K8S_APIMACHINERY_VERSION-go$GO127_VERSION" build_judge_136
