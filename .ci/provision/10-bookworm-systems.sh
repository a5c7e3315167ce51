#!/usr/bin/env bash
# containerd 1.6 and dockerd from bookworm, util-linux flock(1), and shellcheck (it lints the
# system-upgrade-controller Plan's script): installed with the system's apt. shellcheck is recorded
# here, at the version it reports (containerd and dockerd are recorded by 20-real-system-records.sh).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
apt_install containerd docker.io util-linux shellcheck
shellcheck=$(command -v shellcheck)
record_system shellcheck "$("$shellcheck" --version | sed -n 's/^version: \([0-9.]*\)$/\1/p')" "BIN=$shellcheck"
