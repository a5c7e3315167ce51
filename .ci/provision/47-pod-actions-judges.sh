#!/usr/bin/env bash
# The pod-actions judges: each release's own computePodActions (an unexported method of
# pkg/kubelet/kuberuntime) run over generated cases (test/real/pod-actions-judges.integration…).
# test/support/go/pod-actions-judge/main.go is the command; judge.go and the release's adapter files
# (releases.txt) are added to that release's kuberuntime package at build time, never committed:
# - 1.20: inside bookworm's 1.20.2 tree (lib.sh kubernetes_tree), GOPATH mode, bookworm's Go 1.19,
#   with the tree's kubelet build tags (kubernetes-build.sh); our files are added with `go build
#   -overlay`, so the shared tree is never changed;
# - the others: k8s.io/kubernetes at the release from the Go module proxy, required by a build module
#   of ours generated in the cache (kubernetes-modules-lib.sh: its staging modules replaced by their
#   published versions), vendored there (`go mod vendor`) with our files added to the vendored
#   kuberuntime, built with the machine's Go pinned by path (GOTOOLCHAIN=local, or the pinned newer
#   toolchain for a go directive that asks for more); the vendor directory is removed afterwards.
# Each binary is cached in $KUBELET_HASH_CACHE/go-judges/pod-actions-judge-MINOR-vVERSION-GO-TAGS-SRC/
# (SRC: the first 12 hex digits of the SHA-256 of its sources), where
# test/support/pod-actions-judges.ts looks, with the generated build module beside it for the record;
# a changed source is rebuilt, never run stale.
# Arguments, if any, name the only minors to build (`47-pod-actions-judges.sh 1.31 1.20`).
# POD_ACTIONS_JUDGE_BUILD_FLAGS (e.g. -p=1) is added to every go build.
set -euo pipefail
shopt -s inherit_errexit
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
source "$here/kubernetes-build.sh"
source "$here/kubernetes-modules-lib.sh"
GO_SRC=$(cd "$here/../../test/support/go/pod-actions-judge" && pwd)
JUDGES="$KUBELET_HASH_CACHE/go-judges"
mkdir -p "$JUDGES"
read -r -a EXTRA_FLAGS <<<"${POD_ACTIONS_JUDGE_BUILD_FLAGS:-}"

# The sources of one release's judge: main.go, judge.go, then its adapter files.
sources() {
  printf '%s\n' "$GO_SRC/main.go" "$GO_SRC/judge.go"
  local f
  for f in "$@"; do printf '%s\n' "$GO_SRC/$f"; done
}

# The name our files take in the kuberuntime package (zz_kubelet_hash_judge_run_1.28.go).
in_package() { if [ "$1" = judge.go ]; then printf 'zz_kubelet_hash_judge.go\n'; else printf 'zz_kubelet_hash_judge_%s\n' "${1//-/_}"; fi; }

# adapters PACKAGE_DIR ADAPTERS...: copies judge.go and the adapters into a (vendored) package.
adapters() {
  local pkg=$1 f
  shift
  for f in judge.go "$@"; do cp "$GO_SRC/$f" "$pkg/$(in_package "$f")" || return 1; done
}

# overlay_json PACKAGE_DIR MAIN_DIR ADAPTERS...: the -overlay file adding judge.go and the adapters
# to the kuberuntime package directory and main.go as a new package in MAIN_DIR.
overlay_json() {
  local pkg=$1 main=$2 f
  shift 2
  printf '{"Replace":{\n"%s/main.go":"%s/main.go"' "$main" "$GO_SRC"
  for f in judge.go "$@"; do printf ',\n"%s/%s":"%s/%s"' "$pkg" "$(in_package "$f")" "$GO_SRC" "$f"; done
  printf '}}\n'
}

# finish DIR TMP STARTED: moves a whole build into place.
finish() {
  rm -rf "$1" && mv "$2" "$1" || return 1
  log "pod-actions-judge: built in $((SECONDS - $3))s ($(cat "$1/version"))"
}

# The 1.20 judge: a main package that exists only in the overlay, inside the tree (its vendor/).
build_120() {
  local version=$1 gopath tree key dir tmp started=$SECONDS
  shift
  gopath=$(kubernetes_tree)
  patch_kubernetes_tree "$gopath"
  tree="$gopath/src/k8s.io/kubernetes"
  key=$(sources "$@" | xargs cat | sha256sum | cut -c1-12)
  dir="$JUDGES/pod-actions-judge-1.20-v$version-$(go119 env GOVERSION)-${KUBERNETES_BUILD_TAGS/,/-}-$key"
  if [ -x "$dir/pod-actions-judge" ]; then
    log "pod-actions-judge 1.20: cached ($dir)"
    return 0
  fi
  tmp=$(mktemp -d "$JUDGES/.pod-actions-judge-1.20.XXXXXX")
  overlay_json "$tree/pkg/kubelet/kuberuntime" "$tree/cmd/zz-kubelet-hash-pod-actions-judge" "$@" >"$tmp/overlay.json"
  if ! (cd "$tree" && GOPATH="$gopath" GO111MODULE=off CGO_ENABLED=0 GOFLAGS='' GOCACHE="$KUBELET_HASH_CACHE/go-build" \
    go119 build "${EXTRA_FLAGS[@]}" -tags "$KUBERNETES_BUILD_TAGS" -overlay "$tmp/overlay.json" \
    -o "$tmp/pod-actions-judge" ./cmd/zz-kubelet-hash-pod-actions-judge); then
    rm -rf "$tmp"
    return 1
  fi
  printf 'k8s.io/kubernetes v%s (bookworm %s) %s tags %s\n' "$version" "$KUBERNETES_SOURCE_VERSION" \
    "$(go119 env GOVERSION)" "$KUBERNETES_BUILD_TAGS" >"$tmp/version"
  finish "$dir" "$tmp" "$started"
}

# A module-built judge: our build module requires k8s.io/kubernetes@vVERSION; main.go is its package.
build_module() {
  local minor=$1 version=$2 info gomod srcdir go_directive toolchain go_version tags key dir tmp pkg started=$SECONDS
  shift 2
  info=$(GOTOOLCHAIN=local "$GO" mod download -json "k8s.io/kubernetes@v$version")
  gomod=$(jq -r .GoMod <<<"$info")
  srcdir=$(jq -r .Dir <<<"$info")
  go_directive=$(GOTOOLCHAIN=local "$GO" mod edit -json "$gomod" | jq -r .Go)
  toolchain=$(toolchain_for "$go_directive")
  go_version=$(go_pinned "$toolchain" env GOVERSION)
  tags=$(release_tags "$srcdir")
  key=$(sources "$@" | xargs cat | sha256sum | cut -c1-12)
  dir="$JUDGES/pod-actions-judge-$minor-v$version-$go_version-$tags-$key"
  if [ -x "$dir/pod-actions-judge" ]; then
    log "pod-actions-judge $minor: cached ($dir)"
    return 0
  fi
  tmp=$(mktemp -d "$JUDGES/.pod-actions-judge-$minor.XXXXXX")
  write_build_module "$tmp/build" k8s.io/kubernetes "v$version" "v0.${minor#*.}.${version##*.}" "$gomod" \
    k8s.io/kubernetes/pkg/kubelet/kuberuntime
  cp "$GO_SRC/main.go" "$tmp/build/"
  # The module cache is read-only to the go command (and -overlay refuses files beneath it): the
  # packages the judge needs are vendored into the build module, and ours added to kuberuntime there.
  # With -trimpath a vendored package compiles to the same cache entry as from the module cache.
  pkg="$tmp/build/vendor/k8s.io/kubernetes/pkg/kubelet/kuberuntime"
  if ! (cd "$tmp/build" && go_pinned "$toolchain" mod tidy && go_pinned "$toolchain" mod vendor &&
    adapters "$pkg" "$@" &&
    go_pinned "$toolchain" build "${EXTRA_FLAGS[@]}" -mod=vendor -trimpath -tags "$tags" \
      -o "$tmp/pod-actions-judge" .); then
    rm -rf "$tmp"
    return 1
  fi
  (cd "$tmp/build" && go_pinned "$toolchain" list -m k8s.io/kubernetes k8s.io/api) >"$tmp/modules" || return 1
  printf '%s %s tags %s\n' "$(paste -sd' ' "$tmp/modules")" "$go_version" "$tags" >"$tmp/version"
  rm -rf "$tmp/modules" "$tmp/build/main.go" "$tmp/build/vendor"
  finish "$dir" "$tmp" "$started"
}

# Every release is tried (one broken build does not hide the others); the run fails if any failed.
failed=()
started=$SECONDS
while read -r minor version files; do
  case $minor in '' | '#'*) continue ;; esac
  if [ $# -gt 0 ] && [[ " $* " != *" $minor "* ]]; then continue; fi
  # shellcheck disable=SC2086 # the adapter files, one word each
  if [ "$minor" = 1.20 ]; then
    build_120 "$version" $files || failed+=("$minor")
  else
    build_module "$minor" "$version" $files || failed+=("$minor")
  fi
done <"$GO_SRC/releases.txt"
log "pod-actions-judges: $((SECONDS - started))s"
[ "${#failed[@]}" -eq 0 ] || { log "pod-actions-judges that did not build: ${failed[*]}"; exit 1; }
