#!/usr/bin/env bash
# containerd 1.6 and dockerd from bookworm, and util-linux flock(1): installed with the system's apt.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
apt_install containerd docker.io util-linux
