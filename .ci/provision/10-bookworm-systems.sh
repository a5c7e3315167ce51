#!/usr/bin/env bash
# containerd 1.6 and dockerd from bookworm, and util-linux flock(1) (the npm package's meta.db lock
# when no node helper is beside it): installed with the system's apt (containerd and dockerd are
# recorded by 20-real-system-records.sh).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
apt_install containerd docker.io util-linux
