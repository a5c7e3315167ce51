/**
 * From the kubelet's runtime endpoint to the runtime's root, each step said out loud: the layout
 * the socket belongs to (layouts.ts), the process listening on it and its --config/--root flags
 * (listener.ts), the config file's root (runtime-config.ts), else the layout's default. Read-only.
 * `fsRoot` stands in for the node's `/` (a hostPath mount in a pod, a temp dir in tests).
 */
import type { RuntimeName } from '../runtime-records/index.js';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OptionError } from '../errors.js';
import { socketOfEndpoint } from './endpoint.js';
import { RUNTIME_LAYOUTS, type RuntimeLayout } from './layouts.js';
import { flagOf, listenerOf } from './listener.js';
import { containerdRootOf, crioGraphRootOf, crioRunRootOf, dockerRootOf } from './runtime-config.js';

export interface DiscoverOptions {
  /** The kubelet's --container-runtime-endpoint; without it every known socket is tried. */
  endpoint?: string;
  /** The runtime's config file, when it is not where the layout (or the listener's flags) say. */
  config?: string;
  /** The node's `/` (default `/`). */
  fsRoot?: string;
  /** The node's /proc (default `/proc`; a pod sharing the host's PID namespace sees the node's). */
  proc?: string;
}

export interface RuntimeDiscovery {
  runtime: RuntimeName;
  /** The layout matched: containerd, k3s, rke2, k0s, cri-o, docker. */
  layout: string;
  socket: string;
  /** The process listening on the socket, when /proc shows one. */
  listener: { pid: number; argv: string[] } | null;
  /** The config file read (node path), and whether it was there. */
  config: { path: string; found: boolean };
  /** The runtime's root as the node names it. */
  root: string;
  /** The same directory as this process reads it (under fsRoot). */
  rootOnDisk: string;
  rootFrom: 'command line' | 'config file' | 'layout default';
  /** containerd's CRI namespace (the CRI plugin's is fixed). */
  namespace: string;
  /** CRI-O: containers/storage's runroot (storage.conf `runroot`, else its default), as the node names it and as read here. */
  runRoot?: { root: string; onDisk: string; from: 'config file' | 'layout default' };
  /** Each step, for people (doctor prints them). */
  steps: string[];
}

const under = (fsRoot: string, path: string): string => (fsRoot === '/' ? path : join(fsRoot, path));

/** The root `layout` would use on this node: its config file's, else its default. */
function rootOfLayout(layout: RuntimeLayout, fsRoot: string): string {
  const config = under(fsRoot, layout.config);
  const fromConfig = existsSync(config)
    ? rootFromConfig(layout, readFileSync(config, 'utf8'), layout.config)
    : undefined;
  return fromConfig ?? layout.defaultRoot;
}

/**
 * The layout a socket belongs to. k3s and rke2 share the socket path: chosen by evidence (the
 * listener's --config, else the one whose data dir and root exist, else the one whose data dir
 * exists); several with the same evidence is refused, never guessed.
 */
function layoutOf(socket: string, fsRoot: string, listenerConfig: string | undefined): RuntimeLayout | undefined {
  const candidates = RUNTIME_LAYOUTS.filter((l) => l.sockets.includes(socket));
  if (candidates.length <= 1) return candidates[0];
  const named = candidates.find((l) => listenerConfig !== undefined && l.config === listenerConfig);
  if (named) return named;
  const marked = candidates.filter((l) => l.marker !== undefined && existsSync(under(fsRoot, l.marker)));
  if (marked.length <= 1) return marked[0] ?? candidates[0];
  const rooted = marked.filter((l) => existsSync(under(fsRoot, rootOfLayout(l, fsRoot))));
  if (rooted.length === 1) return rooted[0];
  throw new OptionError(
    'AMBIGUOUS_RUNTIME',
    ['runtimeEndpoint'],
    `one runtime layout for ${socket}: a data dir whose runtime root exists, or a running runtime whose --config names it (give --runtime-config)`,
    (rooted.length > 0 ? rooted : marked)
      .map((l) => {
        const root = rootOfLayout(l, fsRoot);
        return `${l.name} (${l.marker ?? ''}, root ${root}${existsSync(under(fsRoot, root)) ? '' : ' does not exist'})`;
      })
      .join(' and '),
  );
}

function rootFromConfig(layout: RuntimeLayout, text: string, file: string): string | undefined {
  switch (layout.runtime) {
    case 'containerd':
      return containerdRootOf(text, file);
    case 'cri-o':
      return crioGraphRootOf(text, file);
    case 'docker':
      return dockerRootOf(text, file);
  }
}

/** What runtime serves the endpoint and where its root is. */
export function discoverRuntime(options: DiscoverOptions = {}): RuntimeDiscovery {
  const fsRoot = options.fsRoot ?? '/';
  const proc = options.proc ?? '/proc';
  const steps: string[] = [];
  let socket: string;
  if (options.endpoint !== undefined) {
    socket = socketOfEndpoint(options.endpoint);
    steps.push(`runtime endpoint ${options.endpoint}: socket ${socket}`);
  } else {
    const found = RUNTIME_LAYOUTS.flatMap((l) => l.sockets).find((s) => existsSync(under(fsRoot, s)));
    if (found === undefined)
      throw new OptionError(
        'INVALID_OPTION',
        ['runtimeEndpoint'],
        "the kubelet's --container-runtime-endpoint (no known runtime socket exists on this node)",
        `looked for ${RUNTIME_LAYOUTS.flatMap((l) => l.sockets).join(', ')}`,
      );
    socket = found;
    steps.push(`no runtime endpoint given: found the socket ${socket}`);
  }
  const listener = fsRoot === '/' ? (listenerOf(socket, proc) ?? null) : null;
  if (listener) steps.push(`listening on it: pid ${listener.pid}, ${listener.argv.join(' ')}`);
  const exe = listener?.argv[0]?.split('/').pop() ?? '';
  const known = layoutOf(
    socket,
    fsRoot,
    options.config ?? (listener ? flagOf(listener.argv, ['--config', '-c']) : undefined),
  );
  const layout: RuntimeLayout | undefined =
    known ??
    (listener && /containerd$/.test(exe)
      ? RUNTIME_LAYOUTS[0]
      : listener && /crio$/.test(exe)
        ? RUNTIME_LAYOUTS.find((l) => l.runtime === 'cri-o')
        : // A socket of its own (a stopped runtime shows no listener) with a config given: containerd's.
          options.config !== undefined
          ? RUNTIME_LAYOUTS[0]
          : undefined);
  if (!layout)
    throw new OptionError(
      'INVALID_OPTION',
      ['runtimeEndpoint'],
      'the socket of containerd, k3s, rke2, k0s, CRI-O or cri-dockerd (or one a running containerd or crio listens on)',
      `${socket} is none of those${listener ? '' : ', and no process is seen listening on it'}`,
    );
  steps.push(`layout: ${layout.name} (${layout.runtime})`);

  const flagConfig = listener && layout.runtime !== 'docker' ? flagOf(listener.argv, ['--config', '-c']) : undefined;
  const configPath = options.config ?? flagConfig ?? layout.config;
  const configOnDisk = under(fsRoot, configPath);
  const found = existsSync(configOnDisk);
  steps.push(
    `config ${configPath}${options.config ? ' (given)' : flagConfig ? ' (from its --config)' : ''}: ${found ? 'read' : 'not there'}`,
  );
  const flagRoot = listener && layout.runtime === 'containerd' ? flagOf(listener.argv, ['--root']) : undefined;
  const fromConfig = found ? rootFromConfig(layout, readFileSync(configOnDisk, 'utf8'), configPath) : undefined;
  // containerd's --root flag wins over the file (it is applied after the config is loaded).
  const root = flagRoot ?? fromConfig ?? layout.defaultRoot;
  const rootFrom = flagRoot ? 'command line' : fromConfig ? 'config file' : 'layout default';
  steps.push(`root ${root} (${rootFrom})`);
  let runRoot: RuntimeDiscovery['runRoot'];
  if (layout.runtime === 'cri-o') {
    const fromFile = found ? crioRunRootOf(readFileSync(configOnDisk, 'utf8'), configPath) : undefined;
    const path = fromFile ?? layout.defaultRunRoot!;
    runRoot = { root: path, onDisk: under(fsRoot, path), from: fromFile ? 'config file' : 'layout default' };
    steps.push(`runroot ${path} (${runRoot.from})`);
  }
  return {
    ...(runRoot ? { runRoot } : {}),
    runtime: layout.runtime,
    layout: layout.name,
    socket,
    listener,
    config: { path: configPath, found },
    root,
    rootOnDisk: under(fsRoot, root),
    rootFrom,
    namespace: 'k8s.io',
    steps,
  };
}

/**
 * Refuses a discovered runtime whose root (or CRI-O runroot) does not exist on the node: a plan,
 * a verification or a doctor report over it would read nothing.
 */
export function requireRuntimeRoot(d: RuntimeDiscovery): void {
  const missing = [
    existsSync(d.rootOnDisk) ? undefined : `root ${d.root} (${d.rootFrom})`,
    d.runRoot && !existsSync(d.runRoot.onDisk) ? `runroot ${d.runRoot.root} (${d.runRoot.from})` : undefined,
  ].filter((m) => m !== undefined);
  if (missing.length > 0)
    throw new OptionError(
      'ROOT_NOT_FOUND',
      ['runtimeEndpoint'],
      `the ${d.layout} runtime's root, on this node${d.rootOnDisk !== d.root ? ` (read at ${d.rootOnDisk})` : ''}`,
      `${missing.join(' and ')} does not exist: another layout's leftover, a wrong --runtime-config or --fs-root?`,
    );
}
