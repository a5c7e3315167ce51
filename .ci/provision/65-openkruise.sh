#!/usr/bin/env bash
# OpenKruise's kruise-manager and kruise-daemon, built from the Go module proxy, for the real judge of
# `predict` on CloneSets and Advanced StatefulSets (test/real/openkruise.integration.test.ts).
#
# v1.8.2, not v1.9.0: 1.8.2 vendors k8s.io/kubernetes v1.30.10, the same minor as the module-built
# 1.30.14 cluster it runs against (60-kubernetes-modules.sh), and is the release whose readiness check
# the library models by the vendored HashContainer alone; v1.9.0 vendors 1.32 and needs go 1.23.
# Both are built with the installed Go (GOTOOLCHAIN=local; the module asks for go 1.22.0).
#
# The release builds as a dependency of a small module of ours (its module zip is the whole tree, and a
# dependency's replace lines are ignored, so ours repeats them as they are). Its CRDs are read at test
# time from the module cache (config/crd/bases of the module's directory), never copied into the clone.
# Everything lands under $KUBELET_HASH_CACHE:
#   gomod/                          the module cache (GOMODCACHE), shared with 60's builds
#   go-build/                       the build cache (GOCACHE)
#   openkruise/vX-GO/               kruise-manager, kruise-daemon, build/ (go.mod, go.sum, tools.go)
set -euo pipefail
source "$(dirname "$0")/lib.sh"

KRUISE_VERSION=1.8.2
GO=/usr/local/go/bin/go
export GOMODCACHE="$KUBELET_HASH_CACHE/gomod" GOCACHE="$KUBELET_HASH_CACHE/go-build"
export GOFLAGS=-mod=mod CGO_ENABLED=0 GO111MODULE=on GOTOOLCHAIN=local
unset GOPATH GOROOT
apt_install jq

v="v$KRUISE_VERSION"
module=github.com/openkruise/kruise
info=$("$GO" mod download -json "$module@$v")
gomod=$(jq -r .GoMod <<<"$info")
srcdir=$(jq -r .Dir <<<"$info")
json=$("$GO" mod edit -json "$gomod")
go_directive=$(jq -r .Go <<<"$json")
go_version=$("$GO" env GOVERSION)
out="$KUBELET_HASH_CACHE/openkruise/$v-$go_version"

if [ ! -x "$out/kruise-manager" ] || [ ! -x "$out/kruise-daemon" ]; then
  started=$SECONDS
  log "building kruise-manager and kruise-daemon $v with $go_version (go $go_directive)"
  mkdir -p "$KUBELET_HASH_CACHE/openkruise"
  tmp=$(mktemp -d "$KUBELET_HASH_CACHE/openkruise/.build.XXXXXX")
  chmod 755 "$tmp"
  trap 'rm -rf "$tmp"' EXIT
  mkdir -p "$tmp/build"
  {
    printf 'module kubelet-hash.invalid/openkruise\n\ngo %s\n\nrequire %s %s\n\n' "$go_directive" "$module" "$v"
    # Kruise pins every k8s.io staging module (and golang.org/x/sys) by replace lines; a dependency's
    # are ignored, so they are repeated here exactly (all of them name published versions).
    jq -r '.Replace[]? | "replace \(.Old.Path)\(if .Old.Version then " " + .Old.Version else "" end) => \(.New.Path)\(if .New.Version then " " + .New.Version else "" end)"' <<<"$json"
  } >"$tmp/build/go.mod"
  if jq -e '.Replace[]? | select(.New.Path | startswith("./"))' <<<"$json" >/dev/null; then
    log "$module@$v replaces a module with a local path: not handled"
    exit 1
  fi
  printf '//go:build tools\n\n// The commands built from this module, imported so that go mod tidy keeps their requirements.\npackage tools\n\nimport (\n\t_ "%s"\n\t_ "%s/cmd/daemon"\n)\n' "$module" "$module" >"$tmp/build/tools.go"
  (cd "$tmp/build" && "$GO" mod tidy >&2)
  # One go build for both commands (their packages overlap); -p=1 unless told otherwise: the machine is shared.
  (cd "$tmp/build" && nice -n 10 "$GO" build -p="${KRUISE_BUILD_PARALLEL:-1}" -trimpath -ldflags "-s -w" -o "$tmp/" "$module" "$module/cmd/daemon")
  mv "$tmp/kruise" "$tmp/kruise-manager"
  mv "$tmp/daemon" "$tmp/kruise-daemon"
  rm -rf "$out" && mv "$tmp" "$out"
  trap - EXIT
  log "built kruise $v in $((SECONDS - started))s"
fi

# Kruise stamps no version into its binaries: the build information names the module version instead
# (`mod` for the main package's module, kruise-manager; `dep` for a dependency).
for name in kruise-manager kruise-daemon; do
  "$GO" version -m "$out/$name" | awk -v want="$v" '($1 == "mod" || $1 == "dep") && $2 == "github.com/openkruise/kruise" { found = ($3 == want) } END { exit !found }' ||
    { log "$out/$name was not built from $module $v"; exit 1; }
done
[ -f "$srcdir/config/crd/bases/apps.kruise.io_clonesets.yaml" ] || { log "no CRDs in $srcdir/config/crd/bases"; exit 1; }
record_system openkruise "$KRUISE_VERSION" "BIN=$out/kruise-manager" "MANAGER=$out/kruise-manager" \
  "DAEMON=$out/kruise-daemon" "CRDS=$srcdir/config/crd/bases" "WEBHOOK_MANIFESTS=$srcdir/config/webhook/manifests.yaml" \
  "GO=$go_version" "BUILD_MODULE=$out/build"
