#!/usr/bin/env bash
# The binaries the tests run from Kubernetes 1.20.2's tree (sourced by 30-kubelet-1.20.sh and
# 35-cluster-1.20.sh, after lib.sh): the kubelet, kube-apiserver, kube-controller-manager and
# kube-proxy, built with bookworm's Go 1.19 in GOPATH mode.
# Whichever of them is not cached yet is built in ONE `go build`: on 2 cores one build of four
# commands keeps both busy through each command's serial tail (its last packages and its link) where
# four builds in a row leave one idle; a cold run builds all four at once from 30.
# Built with the tree's own build tags `providerless` (no in-tree cloud providers: the AWS, Azure,
# GCE, OpenStack and vSphere SDKs are about a third of the code the four commands compile) and
# `dockerless` (no dockershim: the tests' kubelets run with --container-runtime=remote), and linked
# without symbol table and DWARF (-s -w): nothing debugs them, and it shortens every link. Each is cached under $KUBELET_HASH_CACHE/{kubelet,cluster}/KEY: the version, the orig
# tarball's sha256, the tree's patch (lib.sh patch_kubernetes_tree), the build tags, the Go version
# and, for the cluster, a hash of openapi-gen's inputs.
set -euo pipefail
KUBERNETES_BUILD_TAGS=providerless,dockerless

# Sets KUBERNETES_TREE, KUBELET_OUT and CLUSTER_OUT and exports the build environment.
kubernetes_build_setup() {
  local gopath tarball source_hash go_version dirs
  apt_install golang-1.19-go
  gopath=$(kubernetes_tree)
  patch_kubernetes_tree "$gopath"
  KUBERNETES_TREE="$gopath/src/k8s.io/kubernetes"
  tarball=$(ls "$KUBELET_HASH_CACHE/src/kubernetes_${KUBERNETES_SOURCE_VERSION}"/kubernetes_*.orig.tar.gz | head -n 1)
  source_hash=$(sha256sum "$tarball" | cut -c1-16)
  go_version=$(go119 env GOVERSION)
  export GOPATH="$gopath" GO111MODULE=off CGO_ENABLED=0 GOFLAGS='' GOCACHE="$KUBELET_HASH_CACHE/go-build" GOTOOLCHAIN=local
  dirs=$(openapi_dirs)
  [ -n "$dirs" ] || { log "no +k8s:openapi-gen= package found in $KUBERNETES_TREE"; return 1; }
  OPENAPI_DIRS=$dirs
  OPENAPI_GEN_KEY=$(printf '%s\n' "${OPENAPI_FLAGS[*]}" "$dirs" | sha256sum | cut -c1-12)
  KUBELET_OUT="$KUBELET_HASH_CACHE/kubelet/1.20.2-$source_hash-$(kubernetes_tree_patch_key)-${KUBERNETES_BUILD_TAGS/,/-}-$go_version"
  CLUSTER_OUT="$KUBELET_HASH_CACHE/cluster/1.20.2-$source_hash-$(kubernetes_tree_patch_key)-openapi$OPENAPI_GEN_KEY-${KUBERNETES_BUILD_TAGS/,/-}-$go_version"
}

# The packages openapi-gen reads, as the tree's build/root/Makefile.generated_files finds them: every
# directory of the project (vendor/ itself left out, staging/src named as its vendor/ link) with a Go
# file tagged +k8s:openapi-gen=, less the code generator's examples and the sample apiserver, which
# have outputs of their own.
openapi_dirs() {
  (cd "$KUBERNETES_TREE" && find -H . \( -path ./_\* -o -path ./.\* -o -path ./vendor \) -prune -o \
    -type f -name '*.go' -print0 |
    xargs -0 grep -l '^// *+k8s:openapi-gen=' |
    sed -e 's|/[^/]*$||' -e 's|^\./||' -e 's|^staging/src/|vendor/|' |
    grep -v -e '^vendor/k8s.io/code-generator\(/\|$\)' -e '^vendor/k8s.io/sample-apiserver\(/\|$\)' |
    LC_ALL=C sort -u)
}
OPENAPI_PKG=k8s.io/kubernetes/pkg/generated/openapi
OPENAPI_FLAGS=(-p "$OPENAPI_PKG" -O zz_generated.openapi -h vendor/k8s.io/code-generator/hack/boilerplate.go.txt)

# The tarball has no pkg/generated/openapi/zz_generated.openapi.go, which the apiserver needs: it is
# generated offline with the vendored openapi-gen (known API-rule violations go to a report file, as
# the Makefile does; output under a private base, moved in when whole).
generate_openapi() {
  local started=$SECONDS tmp generated="$KUBERNETES_TREE/pkg/generated/openapi/zz_generated.openapi.go"
  if [ "$(cat "$KUBERNETES_TREE/pkg/generated/openapi/.kubelet-hash-generated" 2>/dev/null)" = "$OPENAPI_GEN_KEY" ] && [ -f "$generated" ]; then
    return 0
  fi
  tmp=$(mktemp -d "$KUBELET_HASH_CACHE/.openapi.XXXXXX")
  (cd "$KUBERNETES_TREE" && go119 build -o "$tmp/openapi-gen" ./vendor/k8s.io/kube-openapi/cmd/openapi-gen)
  # shellcheck disable=SC2086 # one package per line, joined by commas
  (cd "$KUBERNETES_TREE" && "$tmp/openapi-gen" --logtostderr -v 0 \
    -i "$(printf 'k8s.io/kubernetes/%s\n' $OPENAPI_DIRS | paste -sd, -)" \
    --output-base "$tmp/out" -r "$tmp/violations.report" "${OPENAPI_FLAGS[@]}")
  mv "$tmp/out/$OPENAPI_PKG/zz_generated.openapi.go" "$generated"
  printf '%s\n' "$OPENAPI_GEN_KEY" >"$KUBERNETES_TREE/pkg/generated/openapi/.kubelet-hash-generated"
  rm -rf "$tmp"
  log "generated $generated in $((SECONDS - started))s"
}

# Builds every binary not yet cached, in one go build, and checks each reports v1.20.2.
ensure_kubernetes_binaries() {
  local wanted=() name ldflags pkg started=$SECONDS tmp
  kubernetes_build_setup
  [ -x "$KUBELET_OUT/kubelet" ] || wanted+=(kubelet)
  for name in kube-apiserver kube-controller-manager kube-proxy; do
    [ -x "$CLUSTER_OUT/$name" ] || wanted+=("$name")
  done
  if [ "${#wanted[@]}" -gt 0 ]; then
    case " ${wanted[*]} " in *" kube-apiserver "*) generate_openapi ;; esac
    # Version stamps as hack/lib/version.sh sets them (GOPATH mode: vendored packages carry the
    # k8s.io/kubernetes/vendor/ prefix); without them every binary reports v0.0.0-master.
    ldflags="-s -w"
    for pkg in k8s.io/kubernetes/vendor/k8s.io/component-base/version k8s.io/kubernetes/vendor/k8s.io/client-go/pkg/version; do
      ldflags="$ldflags -X $pkg.gitVersion=v1.20.2 -X $pkg.gitMajor=1 -X $pkg.gitMinor=20 -X $pkg.gitTreeState=clean"
    done
    log "building ${wanted[*]} 1.20.2 in one go build in $KUBERNETES_TREE"
    tmp=$(mktemp -d "$KUBELET_HASH_CACHE/.kubernetes-build.XXXXXX")
    (cd "$KUBERNETES_TREE" && go119 build -tags "$KUBERNETES_BUILD_TAGS" -ldflags "$ldflags" -o "$tmp/" "${wanted[@]/#/./cmd/}")
    mkdir -p "$KUBELET_OUT" "$CLUSTER_OUT"
    for name in "${wanted[@]}"; do
      if [ "$name" = kubelet ]; then mv "$tmp/$name" "$KUBELET_OUT/$name"; else mv "$tmp/$name" "$CLUSTER_OUT/$name"; fi
    done
    rm -rf "$tmp"
    log "built ${wanted[*]} in $((SECONDS - started))s"
  fi
  "$KUBELET_OUT/kubelet" --version | grep -qx 'Kubernetes v1.20.2' || { log "$KUBELET_OUT/kubelet does not report v1.20.2"; return 1; }
  for name in kube-apiserver kube-controller-manager kube-proxy; do
    "$CLUSTER_OUT/$name" --version | grep -qx 'Kubernetes v1.20.2' || { log "$CLUSTER_OUT/$name does not report v1.20.2"; return 1; }
  done
}
