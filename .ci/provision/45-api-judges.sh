#!/usr/bin/env bash
# The api-judges: one Go program (test/support/go/api-judge/main.go, with the hash judges' shared
# protocol) built once per kubelet minor of test/support/go/api-judge/releases.txt, each against
# that minor's k8s.io/api and k8s.io/apimachinery modules from the Go module proxy, so that each
# hashes containers over the real v1.Container of its release (test/real/api-judges.integration…).
#
# Each build is a small module generated in the cache (go.mod written there, never in the clone),
# compiled with the machine's Go pinned by path (/usr/local/go/bin/go, GOTOOLCHAIN=local: the
# judges' encoding/json escapes are that Go's, and the test compares against the library set to
# them). Modules and build cache live under $KUBELET_HASH_CACHE. Each binary is cached in
# $KUBELET_HASH_CACHE/go-judges/api-judge-MINOR-apiV-apimachineryV-goV-SRC/ (SRC: the first 12 hex
# digits of the SHA-256 of main.go + protocol.go), where test/support/api-judges.ts looks, with the
# generated go.mod/go.sum beside it for the record; a changed source is rebuilt, never run stale.
set -euo pipefail
shopt -s inherit_errexit
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
GO_SRC=$(cd "$here/../../test/support/go" && pwd)
JUDGES="$KUBELET_HASH_CACHE/go-judges"
mkdir -p "$JUDGES"
GO=${API_JUDGE_GO:-/usr/local/go/bin/go}
[ -x "$GO" ] || { log "api-judges need Go at $GO (the machine's toolchain)"; exit 1; }
export GOTOOLCHAIN=local GOFLAGS=-mod=mod GO111MODULE=on CGO_ENABLED=0
export GOMODCACHE="$KUBELET_HASH_CACHE/go-mod" GOCACHE="$KUBELET_HASH_CACHE/go-build"
GO_VERSION=$("$GO" env GOVERSION)

sources() { printf '%s\n' "$GO_SRC/api-judge/main.go" "$GO_SRC/hash-judge-protocol/protocol.go"; }
SRC_KEY=$(sources | xargs cat | sha256sum | cut -c1-12)

# k8s.io/apimachinery has a go.mod from 1.15 on; the modules of 1.9–1.14 have none, so their
# imports (gogo/protobuf, kube-openapi, x/net, …) would resolve to today's versions, which no longer
# fit (kube-openapi's newest needs a newer Go and has another spec type). Those builds require what
# 1.15's apimachinery go.mod requires instead: the oldest pins Kubernetes itself published.
LEGACY_PINS_FROM=v0.0.0-20190612205821-1799e75a0719
# The require lines of k8s.io/apimachinery@$1's go.mod (none when it has no go.mod of its own).
requires_of() {
  local mod
  mod=$("$GO" mod download -json "k8s.io/apimachinery@$1" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')
  sed -n '/^require (/,/^)/{/^require (/d;/^)/d;s|[[:space:]]*//.*||;p}' "$mod"
}

# build MINOR API APIMACHINERY: the module is the build directory itself; the first build of a
# version fetches it (and whatever its go.mod asks for) into GOMODCACHE, later builds are offline.
build() {
  local minor=$1 api=$2 apimachinery=$3 dir tmp started=$SECONDS
  dir="$JUDGES/api-judge-$minor-api$api-apimachinery$apimachinery-$GO_VERSION-$SRC_KEY"
  if [ -x "$dir/api-judge" ]; then
    log "api-judge $minor: cached ($dir)"
    return 0
  fi
  tmp=$(mktemp -d "$JUDGES/.api-judge-$minor.XXXXXX")
  sources | xargs cp -t "$tmp/"
  cat >"$tmp/go.mod" <<MOD
module kubelet-hash/api-judge

go 1.21

require (
	github.com/davecgh/go-spew v1.1.1
	k8s.io/api $api
	k8s.io/apimachinery $apimachinery
)
MOD
  if [ -z "$(requires_of "$apimachinery")" ]; then
    printf 'require (\n%s\n)\n' "$(requires_of "$LEGACY_PINS_FROM" | grep -v -e davecgh/go-spew -e '^[[:space:]]*$')" >>"$tmp/go.mod"
  fi
  if ! (cd "$tmp" && "$GO" build -trimpath -o api-judge . >build.log 2>&1); then
    log "api-judge $minor: build failed:"
    cat "$tmp/build.log" >&2
    rm -rf "$tmp"
    return 1
  fi
  # What was really linked (the selected versions may be newer than the requirements above).
  # (build runs under `||`, where errexit is off: each step's failure is returned by hand.)
  (cd "$tmp" && "$GO" list -m k8s.io/api k8s.io/apimachinery github.com/davecgh/go-spew) >"$tmp/modules" || return 1
  printf '%s %s\n' "$(paste -sd' ' "$tmp/modules")" "$GO_VERSION" >"$tmp/version"
  rm -f "$tmp/main.go" "$tmp/protocol.go" "$tmp/build.log" "$tmp/modules"
  rm -rf "$dir" && mv "$tmp" "$dir" || return 1
  log "api-judge $minor: built in $((SECONDS - started))s ($(cat "$dir/version"))"
}

# Every minor is tried (one broken build does not hide the others); the run fails if any failed.
# Arguments, if any, name the only minors to build, in that order (`45-api-judges.sh 1.30 1.27`).
declare -A line_of=()
order=()
while read -r minor rest; do
  case $minor in '' | '#'*) continue ;; esac
  line_of[$minor]=$rest
  order+=("$minor")
done <"$GO_SRC/api-judge/releases.txt"
[ $# -eq 0 ] || order=("$@")
# Two builds at a time (API_JUDGE_JOBS): each build ends in one long compile of k8s.io/api/core/v1,
# which keeps one core busy; two keep both busy. A failed build leaves a mark, read at the end.
jobs_max=${API_JUDGE_JOBS:-2}
marks=$(mktemp -d "$JUDGES/.api-judge-failed.XXXXXX")
started=$SECONDS
for minor in "${order[@]}"; do
  if [ -z "${line_of[$minor]:-}" ]; then
    log "api-judge $minor: not in releases.txt"
    touch "$marks/$minor"
    continue
  fi
  read -r _algorithm api apimachinery <<<"${line_of[$minor]}"
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
  { build "$minor" "$api" "$apimachinery" || touch "$marks/$minor"; } &
done
wait
failed=$(find "$marks" -mindepth 1 -printf '%f ')
rm -rf "$marks"
log "api-judges: $((SECONDS - started))s"
[ -z "$failed" ] || { log "api-judges that did not build: $failed"; exit 1; }
