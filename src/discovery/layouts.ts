/**
 * Where each distribution puts its container runtime, as the projects' own sources and docs say:
 * plain containerd (its defaults: config /etc/containerd/config.toml, root /var/lib/containerd),
 * k3s and rke2 (the k3s agent code: socket /run/k3s/containerd/containerd.sock, config
 * <data-dir>/agent/etc/containerd/config.toml, root <data-dir>/agent/containerd, data dirs
 * /var/lib/rancher/k3s and /var/lib/rancher/rke2), k0s (docs/runtime.md: --root=/var/lib/k0s/containerd,
 * --address=/run/k0s/containerd.sock, --config=/etc/k0s/containerd.toml; before 1.27 the socket
 * was /var/lib/k0s/run/containerd.sock), CRI-O and cri-dockerd.
 */

/** One distribution's runtime layout, paths absolute on the node. */
export interface RuntimeLayout {
  /** `containerd`, `k3s`, `rke2`, `k0s`, `cri-o`, `docker`. */
  name: string;
  runtime: 'containerd' | 'cri-o' | 'docker';
  /** The CRI sockets its kubelet is pointed at. */
  sockets: readonly string[];
  /** The runtime's config file, read for its root. */
  config: string;
  /** The root the runtime uses when its config names none. */
  defaultRoot: string;
  /** A directory only this distribution has: tells k3s from rke2, which share a socket path. */
  marker?: string;
}

export const RUNTIME_LAYOUTS: readonly RuntimeLayout[] = [
  {
    name: 'containerd',
    runtime: 'containerd',
    sockets: ['/run/containerd/containerd.sock', '/var/run/containerd/containerd.sock'],
    config: '/etc/containerd/config.toml',
    defaultRoot: '/var/lib/containerd',
  },
  {
    name: 'rke2',
    runtime: 'containerd',
    sockets: ['/run/k3s/containerd/containerd.sock'],
    config: '/var/lib/rancher/rke2/agent/etc/containerd/config.toml',
    defaultRoot: '/var/lib/rancher/rke2/agent/containerd',
    marker: '/var/lib/rancher/rke2/agent',
  },
  {
    name: 'k3s',
    runtime: 'containerd',
    sockets: ['/run/k3s/containerd/containerd.sock'],
    config: '/var/lib/rancher/k3s/agent/etc/containerd/config.toml',
    defaultRoot: '/var/lib/rancher/k3s/agent/containerd',
    marker: '/var/lib/rancher/k3s/agent',
  },
  {
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
  },
  {
    name: 'docker',
    runtime: 'docker',
    sockets: ['/run/cri-dockerd.sock', '/var/run/cri-dockerd.sock'],
    config: '/etc/docker/daemon.json',
    defaultRoot: '/var/lib/docker',
  },
];
