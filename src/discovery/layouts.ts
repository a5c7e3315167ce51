/**
 * Where each distribution puts its container runtime, as the projects' own sources say (each
 * layout names the files it was checked against): plain containerd (its defaults: config
 * /etc/containerd/config.toml, root /var/lib/containerd), k3s and rke2 (both run the k3s agent
 * code, each with its own data dir; they share the socket path), k0s, CRI-O and cri-dockerd.
 */

import type { RuntimeName } from '../runtime-records/index.js';

/** One distribution's runtime layout, paths absolute on the node. */
export interface RuntimeLayout {
  /** `containerd`, `k3s`, `rke2`, `k0s`, `cri-o`, `docker`. */
  name: string;
  runtime: RuntimeName;
  /** The CRI sockets its kubelet is pointed at. */
  sockets: readonly string[];
  /** The runtime's config file, read for its root. */
  config: string;
  /** The root the runtime uses when its config names none. */
  defaultRoot: string;
  /** A directory only this distribution has: tells k3s from rke2, which share a socket path. */
  marker?: string;
  /**
   * The runtime's own systemd units, stopped after the kubelet in this order (the plain layouts
   * only: k3s, rke2 and k0s run kubelet and containerd in one service of their own).
   */
  units?: readonly string[];
  /** CRI-O: containers/storage's runroot when storage.conf names none (run as root). */
  defaultRunRoot?: string;
}

export const RUNTIME_LAYOUTS: readonly RuntimeLayout[] = [
  {
    name: 'containerd',
    runtime: 'containerd',
    sockets: ['/run/containerd/containerd.sock', '/var/run/containerd/containerd.sock'],
    config: '/etc/containerd/config.toml',
    defaultRoot: '/var/lib/containerd',
    // containerd's own containerd.service.
    units: ['containerd'],
  },
  {
    // rancher/rke2 @ v1.36.3+rke2r1: pkg/cli/cmds/server.go and agent.go make /var/lib/rancher/rke2 the
    // default data dir; pkg/executor/staticpod/spw.go and pkg/cli/cmds/completion.go name the socket
    // /run/k3s/containerd/containerd.sock. Config and root are the k3s agent's (below) under that data
    // dir: rke2's go.mod builds in k3s-io/k3s.
    name: 'rke2',
    runtime: 'containerd',
    sockets: ['/run/k3s/containerd/containerd.sock'],
    config: '/var/lib/rancher/rke2/agent/etc/containerd/config.toml',
    defaultRoot: '/var/lib/rancher/rke2/agent/containerd',
    marker: '/var/lib/rancher/rke2/agent',
  },
  {
    // k3s-io/k3s (index commits 001a6d9, 4586010, 046a817; the snapshot was too large to fetch by tag):
    // pkg/datadir/datadir.go, default data dir /var/lib/rancher/k3s when run as root;
    // pkg/agent/config/config.go, containerd config <data-dir>/agent/etc/containerd/config.toml and
    // root <data-dir>/agent/containerd; pkg/agent/config/config_linux.go, state /run/k3s/containerd
    // and the socket containerd.sock inside it.
    name: 'k3s',
    runtime: 'containerd',
    sockets: ['/run/k3s/containerd/containerd.sock'],
    config: '/var/lib/rancher/k3s/agent/etc/containerd/config.toml',
    defaultRoot: '/var/lib/rancher/k3s/agent/containerd',
    marker: '/var/lib/rancher/k3s/agent',
  },
  {
    // k0sproject/k0s @ v1.36.3+k0s.2: pkg/component/worker/containerd/component.go starts containerd
    // with root <data-dir>/containerd, state <run-dir>/containerd and the socket from utils_other.go
    // (<run-dir>/containerd.sock); component_other.go, config /etc/k0s/containerd.toml;
    // pkg/constant/constant_unix.go, data dir /var/lib/k0s; pkg/config/cfgvars.go, run dir /run/k0s
    // as root and <data-dir>/run otherwise (the second socket: k0s not run as root, the same rule
    // since v1.20, not an older release's path).
    name: 'k0s',
    runtime: 'containerd',
    sockets: ['/run/k0s/containerd.sock', '/var/lib/k0s/run/containerd.sock'],
    config: '/etc/k0s/containerd.toml',
    defaultRoot: '/var/lib/k0s/containerd',
  },
  {
    name: 'cri-o',
    runtime: 'cri-o',
    sockets: ['/run/crio/crio.sock', '/var/run/crio/crio.sock'],
    config: '/etc/containers/storage.conf',
    defaultRoot: '/var/lib/containers/storage',
    defaultRunRoot: '/run/containers/storage',
    // cri-o's contrib/systemd crio.service.
    units: ['crio'],
  },
  {
    name: 'docker',
    runtime: 'docker',
    sockets: ['/run/cri-dockerd.sock', '/var/run/cri-dockerd.sock'],
    config: '/etc/docker/daemon.json',
    defaultRoot: '/var/lib/docker',
    // Mirantis cri-dockerd's packaging/systemd cri-docker.service, then moby's contrib/init/systemd
    // docker.socket and docker.service (the socket too, or a connection would start dockerd again
    // during apply). Kubelets before 1.24 talk to dockerd through their own dockershim: no cri-docker.
    units: ['cri-docker', 'docker.socket', 'docker'],
  },
];
