#!/usr/bin/env bash
# Shared helpers for provisioning the real systems the tests run against (sourced, not run).
# Everything comes from Debian's archive through apt's own clients; builds and downloads are cached
# outside the clone, under $KUBELET_HASH_CACHE, keyed by package version so a second run reuses them.
set -euo pipefail

: "${KUBELET_HASH_CACHE:=/var/cache/kubelet-hash}"
export KUBELET_HASH_CACHE
mkdir -p "$KUBELET_HASH_CACHE"

log() { printf 'provision: %s\n' "$*" >&2; }

# bookworm's Go 1.19, always by its own GOROOT: the machine's PATH puts a newer Go first, and the 1.20
# tree (GOPATH mode, old x/sys linknames) builds only with the Go its Debian package was built with.
GO119_ROOT=/usr/lib/go-1.19
go119() {
  apt_install golang-1.19-go
  GOROOT=$GO119_ROOT GOTOOLCHAIN=local "$GO119_ROOT/bin/go" "$@"
}

# The mirror URI the machine's own apt configuration names (never a hard-coded host).
debian_mirror() {
  local uri
  uri=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
    uri=$(awk '$1 == "deb" { print $2; exit }' /etc/apt/sources.list)
  fi
  [ -n "$uri" ] || { log "no Debian mirror found in the apt configuration"; return 1; }
  printf '%s\n' "$uri"
}

# A private apt configuration that knows bookworm's sources plus trixie and sid binaries, kept apart
# from the system's so that nothing from a newer suite is ever installed (that would upgrade libc).
PRIVATE_APT="$KUBELET_HASH_CACHE/apt"
private_apt_opts() {
  printf '%s\n' \
    -o "Dir::Etc::SourceList=$PRIVATE_APT/sources.list" \
    -o "Dir::Etc::SourceParts=/dev/null" \
    -o "Dir::State::Lists=$PRIVATE_APT/lists" \
    -o "Dir::Cache=$PRIVATE_APT/cache" \
    -o "Dir::State::status=$PRIVATE_APT/status" \
    -o "APT::Architecture=$(dpkg --print-architecture)" \
    -o "Acquire::Languages=none" \
    -o "APT::Sandbox::User=root"
}
private_apt_update() {
  local mirror stamp
  mirror=$(debian_mirror)
  mkdir -p "$PRIVATE_APT/lists/partial" "$PRIVATE_APT/cache/archives/partial"
  touch "$PRIVATE_APT/status"
  cat >"$PRIVATE_APT/sources.list.new" <<LIST
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bookworm main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror trixie main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror sid main
LIST
  mv "$PRIVATE_APT/sources.list.new" "$PRIVATE_APT/sources.list"
  stamp="$PRIVATE_APT/updated"
  # Lists are refreshed at most once a day: a warm CI run needs no network at all.
  if [ -f "$stamp" ] && [ -n "$(find "$stamp" -mmin -1440 2>/dev/null)" ]; then return 0; fi
  # shellcheck disable=SC2046
  apt-get $(private_apt_opts) update -qq >&2
  touch "$stamp"
}

# Download one exact binary package version from the private configuration and unpack it (never
# install it) into $KUBELET_HASH_CACHE/pkg/NAME_VERSION; prints that directory.
unpack_package() {
  local name=$1 version=$2 dir file deb
  dir="$KUBELET_HASH_CACHE/pkg/${name}_${version}"
  if [ -f "$dir/.unpacked" ]; then printf '%s\n' "$dir"; return 0; fi
  private_apt_update
  mkdir -p "$KUBELET_HASH_CACHE/debs"
  # apt-get download writes an epoch's colon as %3a: NAME_EPOCH%3aVERSION_ARCH.deb.
  file="${name}_${version/:/%3a}_"
  deb=$(find "$KUBELET_HASH_CACHE/debs" -maxdepth 1 -name "$file*.deb" | head -n 1)
  if [ -z "$deb" ]; then
    # shellcheck disable=SC2046
    (cd "$KUBELET_HASH_CACHE/debs" && apt-get $(private_apt_opts) download -qq "$name=$version" >&2)
    deb=$(find "$KUBELET_HASH_CACHE/debs" -maxdepth 1 -name "$file*.deb" | head -n 1)
  fi
  [ -n "$deb" ] || { log "apt-get download $name=$version left no $file*.deb"; return 1; }
  rm -rf "$dir" && mkdir -p "$dir"
  dpkg-deb -x "$deb" "$dir"
  touch "$dir/.unpacked"
  printf '%s\n' "$dir"
}

# Download a source package (bookworm deb-src) into $KUBELET_HASH_CACHE/src/NAME_VERSION; prints it.
download_source() {
  local name=$1 version=$2 dir
  dir="$KUBELET_HASH_CACHE/src/${name}_${version}"
  if [ -f "$dir/.downloaded" ]; then printf '%s\n' "$dir"; return 0; fi
  private_apt_update
  rm -rf "$dir" && mkdir -p "$dir"
  (cd "$dir" && apt-get $(private_apt_opts) source --download-only -qq "$name=$version" >&2)
  touch "$dir/.downloaded"
  printf '%s\n' "$dir"
}

# Install bookworm packages with the system's apt (the machine's own suite only).
apt_install() {
  local missing=() p
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ "${#missing[@]}" -eq 0 ] && return 0
  if [ "$(id -u)" != 0 ]; then log "cannot install ${missing[*]}: not root"; return 1; fi
  if [ ! -f /var/lib/apt/periodic/kubelet-hash-updated ] || [ -n "$(find /var/lib/apt/periodic/kubelet-hash-updated -mmin +1440)" ]; then
    apt-get update -qq >&2
    mkdir -p /var/lib/apt/periodic && touch /var/lib/apt/periodic/kubelet-hash-updated
  fi
  # Another apt client may hold the lock for a while (an unattended run, a second provisioning).
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# Kubernetes 1.20.2's whole tree (with vendor/) from bookworm's `kubernetes` source package, unpacked
# once into a GOPATH layout ($GOPATH/src/k8s.io/kubernetes): GOPATH mode is what builds it offline
# (module mode with -mod=vendor asks for go.mod updates). Prints the GOPATH.
KUBERNETES_SOURCE_VERSION=1.20.5+really1.20.2-1.1+deb12u1
kubernetes_tree() {
  local src gopath tree tarball
  gopath="$KUBELET_HASH_CACHE/gopath-kubernetes-1.20.2"
  tree="$gopath/src/k8s.io/kubernetes"
  if [ -f "$gopath/.unpacked" ]; then printf '%s\n' "$gopath"; return 0; fi
  src=$(download_source kubernetes "$KUBERNETES_SOURCE_VERSION")
  tarball=$(ls "$src"/kubernetes_*.orig.tar.gz | head -n 1)
  rm -rf "$gopath" && mkdir -p "$tree"
  tar -xzf "$tarball" -C "$tree" --strip-components=1
  touch "$gopath/.unpacked"
  printf '%s\n' "$gopath"
}

# The one change made to the tree before any binary that decodes API objects is built: the vendored
# github.com/modern-go/reflect2 1.0.1 does not work with Go >= 1.18 (a 1.20 apiserver built with
# bookworm's Go 1.19 panics in reflect2.(*frozenConfig).Type2 on the first request that decodes a
# map), so vendor/github.com/modern-go/reflect2 is replaced by bookworm's
# golang-github-modern-go-reflect2-dev (1.0.2, API-compatible). Idempotent; binaries built from the
# tree put kubernetes_tree_patch_key in their cache key so that a change here rebuilds them.
kubernetes_tree_patch_key() {
  printf 'reflect2-%s\n' "$(dpkg-query -W -f '${Version}' golang-github-modern-go-reflect2-dev)"
}
patch_kubernetes_tree() {
  local gopath=$1 tree key vendored
  tree="$gopath/src/k8s.io/kubernetes"
  apt_install golang-github-modern-go-reflect2-dev
  key=$(kubernetes_tree_patch_key)
  [ -f "$gopath/.patched-$key" ] && return 0
  vendored="$tree/vendor/github.com/modern-go/reflect2"
  rm -rf "$vendored.new" && cp -r /usr/share/gocode/src/github.com/modern-go/reflect2 "$vendored.new"
  # GOPATH mode would refuse nothing here, but a go.mod inside vendor/ is noise for the module tools.
  rm -f "$vendored.new/go.mod" "$vendored.new/go.sum"
  rm -rf "$vendored" && mv "$vendored.new" "$vendored"
  rm -f "$gopath"/.patched-* && touch "$gopath/.patched-$key"
  log "vendor/github.com/modern-go/reflect2 replaced by bookworm's ($key)"
}

# Record where a provisioned real system lives, for the tests' registry (test/support/real-systems.ts):
# $KUBELET_HASH_CACHE/systems/NAME-VERSION.env, lines KEY=VALUE (BIN=…, and whatever else the system
# needs). A record is written last, after the system is complete, so a half-provisioned system is never
# found. Usage: record_system NAME VERSION KEY=VALUE...
record_system() {
  local name=$1 version=$2 file
  shift 2
  mkdir -p "$KUBELET_HASH_CACHE/systems"
  file="$KUBELET_HASH_CACHE/systems/$name-$version.env"
  printf '%s\n' "$@" >"$file.new"
  mv "$file.new" "$file"
  log "recorded $name $version in $file"
}
