#!/usr/bin/env bash
# Building a Kubernetes release from the Go module proxy (sourced after lib.sh by
# 60-kubernetes-modules.sh and 47-pod-actions-judges.sh): the pinned Go, the module environment and
# a build module of ours that requires k8s.io/kubernetes at one release with its staging modules
# replaced by their published versions.
# A release builds as a dependency of a small module of ours: the release's own go.mod points every
# k8s.io/<staging> module at ./staging/src/..., which its module zip does not carry (and a dependency's
# replace lines are ignored anyway), so ours replaces each of them with its published v0.MINOR.PATCH.

# The Go of every build, pinned: the installed one with GOTOOLCHAIN=local, or a pinned newer toolchain
# (downloaded by the go command from the module proxy) for a module whose go directive asks for more.
GO=/usr/local/go/bin/go
GO_NEWER_TOOLCHAIN=go1.27.3
export GOMODCACHE="$KUBELET_HASH_CACHE/gomod" GOCACHE="$KUBELET_HASH_CACHE/go-build"
export GOFLAGS=-mod=mod CGO_ENABLED=0 GO111MODULE=on
unset GOPATH GOROOT

# version_le A B: true when Go version A (1.22.0, 1.25) is at most B.
version_le() { [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n 1)" = "$1" ]; }

# The GOTOOLCHAIN value for a module whose go directive is $1.
toolchain_for() {
  local local_version
  local_version=$(GOTOOLCHAIN=local "$GO" env GOVERSION)
  if version_le "$1" "${local_version#go}"; then printf 'local\n'; else printf '%s\n' "$GO_NEWER_TOOLCHAIN"; fi
}

# go_pinned TOOLCHAIN ARGS...: the installed go, told exactly which toolchain to run.
go_pinned() {
  local toolchain=$1
  shift
  GOTOOLCHAIN=$toolchain "$GO" "$@"
}

# staging_release MODULE VERSION: VERSION when the module proxy serves MODULE@VERSION, else the newest
# earlier patch of the same minor it serves, which is logged (and recorded as SUBSTITUTES: the
# machine's proxy serves no v0.31.14 of k8s.io/endpointslice, kube-controller-manager and
# kube-scheduler: API types and the endpoint slice controller's helpers, nothing the kubelet hashes).
staging_release() {
  local module=$1 version=$2 prefix patch fallback
  if GOTOOLCHAIN=local "$GO" mod download "$module@$version" 2>/dev/null; then
    printf '%s\n' "$version"
    return 0
  fi
  prefix=${version%.*}
  patch=${version##*.}
  fallback=$(GOTOOLCHAIN=local "$GO" list -m -versions "$module" 2>/dev/null | tr ' ' '\n' |
    awk -v prefix="$prefix." -v patch="$patch" 'index($0, prefix) == 1 {
        p = substr($0, length(prefix) + 1); if (p ~ /^[0-9]+$/ && p + 0 < patch + 0) print p }' | sort -n | tail -n 1)
  # None at all (the sample-* modules): no replace line; a command that needed it would fail to build.
  if [ -z "$fallback" ]; then
    log "the module proxy serves no $module $prefix.x up to $version: not replaced"
    return 0
  fi
  log "the module proxy does not serve $module@$version: using $prefix.$fallback"
  printf '%s.%s\n' "$prefix" "$fallback"
}

# Writes the build module for MODULE@VERSION into DIR: go.mod (module, the dependency's go directive,
# the requirement, one replace per ./staging line and the dependency's other replace lines as they are)
# and tools.go importing PACKAGES, so that `go mod tidy` keeps exactly what they need.
# Usage: write_build_module DIR MODULE VERSION STAGING_VERSION GOMOD_FILE PACKAGES...
write_build_module() {
  local dir=$1 module=$2 version=$3 staging_version=$4 gomod=$5 json go_directive pkg staged served
  shift 5
  json=$(GOTOOLCHAIN=local "$GO" mod edit -json "$gomod")
  go_directive=$(jq -r '.Go' <<<"$json")
  mkdir -p "$dir"
  {
    printf 'module kubelet-hash.invalid/build\n\ngo %s\n\nrequire %s %s\n\n' "$go_directive" "$module" "$version"
    # ./staging/src/k8s.io/api => k8s.io/api v0.31.14 (the old path's module, its published release).
    for staged in $(jq -r '.Replace[]? | select(.New.Path | startswith("./staging/")) | .Old.Path' <<<"$json"); do
      served=$(staging_release "$staged" "$staging_version")
      [ -z "$served" ] || printf 'replace %s => %s %s\n' "$staged" "$staged" "$served"
    done
    # Anything else the release replaces (none in 1.30+; older releases pinned a few forks).
    jq -r '.Replace[]? | select(.New.Path | startswith("./") | not)
      | "replace \(.Old.Path)\(if .Old.Version then " " + .Old.Version else "" end) => \(.New.Path)\(if .New.Version then " " + .New.Version else "" end)"' <<<"$json"
  } >"$dir/go.mod"
  if jq -e '.Replace[]? | select(.New.Path | startswith("./")) | select(.New.Path | startswith("./staging/") | not)' <<<"$json" >/dev/null; then
    log "$module@$version replaces a module with a local path outside ./staging/: not handled"
    return 1
  fi
  {
    printf '//go:build tools\n\n// The commands built from this module, imported so that go mod tidy keeps their requirements.\npackage tools\n\nimport (\n'
    for pkg in "$@"; do printf '\t_ "%s"\n' "$pkg"; done
    printf ')\n'
  } >"$dir/tools.go"
}


# release_tags SRCDIR: the build tags of a release's module source: `providerless` (no in-tree cloud
# providers) as long as the tree has files behind it, else `none`.
release_tags() {
  if grep -rqlE --include='*.go' '^//go:build.*providerless' "$1/pkg" "$1/cmd" 2>/dev/null; then
    printf 'providerless\n'
  else
    printf 'none\n'
  fi
}
