/**
 * `npm run build:image`: an image archive of the agent, written by hand (no docker build, no
 * engine): one layer with the single executable at /kubelet-hash (also /usr/local/bin/kubelet-hash),
 * the shared libraries it and /bin/sh need (found with ldd, copied from this Debian machine),
 * Debian's dash as /bin/sh (the fleet Job's containers run `sh -c`), and kubectl from Debian
 * bookworm's `kubernetes-client` package (1.20.2, static) for the Job's init container. The
 * archive holds both layouts, as `docker save` does from Docker 25: an OCI image layout
 * (`oci-layout`, `index.json`, `blobs/sha256/…`) for `ctr images import`, and a docker-archive
 * `manifest.json` naming the same blobs for `docker load` (20.10 reads only that).
 *
 * Usage: tsx scripts/build-image.ts [--exe FILE] [--kubectl FILE] [--name REF] [--out FILE]
 *   --exe      the executable (default: exe/kubelet-hash-linux-x64, built with build:exe when missing)
 *   --kubectl  kubectl to include (default: extracted from `apt-get download kubernetes-client`)
 *   --name     image reference (default kubelet-hash:VERSION, i.e. docker.io/library/kubelet-hash:VERSION)
 *   --out      archive path (default exe/kubelet-hash-image.tar)
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const GOARCH = ({ x64: 'amd64', arm64: 'arm64' } as Record<string, string>)[process.arch] ?? process.arch;
const PATH_ENV = 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** One entry of the layer. */
type LayerEntry =
  | { path: string; kind: 'file'; mode: number; data: Buffer }
  | { path: string; kind: 'dir'; mode: number }
  | { path: string; kind: 'symlink'; target: string };

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** A ustar header (512 bytes) for `name`; fixed owner root and mtime 0, so the same inputs give the same digest. */
function header(name: string, size: number, mode: number, type: '0' | '2' | '5', link = ''): Buffer {
  const h = Buffer.alloc(512);
  let prefix = '';
  let base = name;
  if (Buffer.byteLength(name) > 100) {
    const cut = name.lastIndexOf('/', 155);
    if (cut <= 0 || Buffer.byteLength(name.slice(cut + 1)) > 100) throw new Error(`path too long for ustar: ${name}`);
    prefix = name.slice(0, cut);
    base = name.slice(cut + 1);
  }
  if (Buffer.byteLength(link) > 100) throw new Error(`link target too long for ustar: ${link}`);
  const put = (value: string, at: number, len: number): void => {
    h.write(value, at, len, 'utf8');
  };
  const octal = (n: number, len: number): string => n.toString(8).padStart(len - 1, '0') + '\0';
  put(base, 0, 100);
  put(octal(mode, 8), 100, 8);
  put(octal(0, 8), 108, 8); // uid
  put(octal(0, 8), 116, 8); // gid
  put(octal(size, 12), 124, 12);
  put(octal(0, 12), 136, 12); // mtime
  h.fill(0x20, 148, 156); // checksum counted as spaces
  put(type, 156, 1);
  put(link, 157, 100);
  put('ustar\0', 257, 6);
  put('00', 263, 2);
  put('root', 265, 32);
  put('root', 297, 32);
  put(prefix, 345, 155);
  let sum = 0;
  for (const b of h) sum += b;
  put(sum.toString(8).padStart(6, '0') + '\0 ', 148, 8);
  return h;
}

/** A tar archive of `entries` in the given order (parents must come before children). */
function tarArchive(entries: readonly LayerEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    if (e.kind === 'file') {
      parts.push(header(e.path, e.data.length, e.mode, '0'), e.data);
      const pad = (512 - (e.data.length % 512)) % 512;
      if (pad > 0) parts.push(Buffer.alloc(pad));
    } else if (e.kind === 'dir') {
      parts.push(header(e.path.endsWith('/') ? e.path : `${e.path}/`, 0, e.mode, '5'));
    } else {
      parts.push(header(e.path, 0, 0o777, '2', e.target));
    }
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

/** The shared objects `ldd` says `binary` loads (absolute paths, the dynamic loader included); none for a static binary. */
function sharedLibraries(binary: string): string[] {
  let out: string;
  try {
    out = execFileSync('ldd', [binary], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch {
    return []; // "not a dynamic executable"
  }
  const libs = new Set<string>();
  for (const line of out.split('\n')) {
    const m = /=>\s+(\/\S+)/.exec(line) ?? /^\s*(\/\S+)\s+\(/.exec(line);
    if (m) libs.add(m[1]!);
  }
  return [...libs].sort();
}

/** The layer's entries: every file at the path its users look for it, with its parents as directories. */
function imageEntries(files: { exe: string; kubectl: string; sh: string }): LayerEntry[] {
  const byPath = new Map<string, LayerEntry>();
  const dirs = new Set<string>();
  const addParents = (path: string): void => {
    for (let d = dirname(path); d !== '.' && d !== '/'; d = dirname(d)) dirs.add(d.replace(/^\//, ''));
  };
  const file = (path: string, source: string | Buffer, mode = 0o755): void => {
    const rel = path.replace(/^\//, '');
    addParents(rel);
    byPath.set(rel, {
      path: rel,
      kind: 'file',
      mode,
      data: typeof source === 'string' ? readFileSync(source) : source,
    });
  };
  file('/kubelet-hash', files.exe);
  file('/usr/bin/kubectl', files.kubectl);
  file('/bin/sh', files.sh);
  // The loader and libraries at the paths ldd resolved (regular files: the image needs no /lib symlinks).
  for (const lib of new Set([
    ...sharedLibraries(files.exe),
    ...sharedLibraries(files.sh),
    ...sharedLibraries(files.kubectl),
  ])) {
    file(lib, realpathSync(lib), 0o755);
  }
  file(
    '/etc/passwd',
    Buffer.from('root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n'),
    0o644,
  );
  file('/etc/group', Buffer.from('root:x:0:\nnogroup:x:65534:\n'), 0o644);
  addParents('usr/local/bin/kubelet-hash');
  byPath.set('usr/local/bin/kubelet-hash', {
    path: 'usr/local/bin/kubelet-hash',
    kind: 'symlink',
    target: '/kubelet-hash',
  });
  for (const d of ['tmp', 'work', 'root', 'proc', 'sys', 'dev']) dirs.add(d);
  const dirEntries: LayerEntry[] = [...dirs]
    .sort()
    .map((d) => ({ path: d, kind: 'dir', mode: d === 'tmp' ? 0o1777 : 0o755 }));
  return [...dirEntries, ...[...byPath.values()].sort((a, b) => (a.path < b.path ? -1 : 1))];
}

/** The archive: OCI layout plus docker-archive manifest.json over the same blobs. */
function imageArchive(layer: Buffer, ref: string, cmd: readonly string[]): Buffer {
  const { repo, tag } = splitRef(ref);
  const layerDigest = sha256(layer);
  const config = Buffer.from(
    JSON.stringify({
      architecture: GOARCH,
      os: 'linux',
      config: { Env: [PATH_ENV], Cmd: cmd, WorkingDir: '/' },
      rootfs: { type: 'layers', diff_ids: [`sha256:${layerDigest}`] },
      history: [{ created_by: 'kubelet-hash scripts/build-image.ts' }],
    }),
  );
  const configDigest = sha256(config);
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: {
        mediaType: 'application/vnd.oci.image.config.v1+json',
        digest: `sha256:${configDigest}`,
        size: config.length,
      },
      layers: [
        { mediaType: 'application/vnd.oci.image.layer.v1.tar', digest: `sha256:${layerDigest}`, size: layer.length },
      ],
    }),
  );
  const manifestDigest = sha256(manifest);
  const fullName = fullReference(repo, tag);
  const index = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.index.v1+json',
      manifests: [
        {
          mediaType: 'application/vnd.oci.image.manifest.v1+json',
          digest: `sha256:${manifestDigest}`,
          size: manifest.length,
          annotations: { 'io.containerd.image.name': fullName, 'org.opencontainers.image.ref.name': tag },
        },
      ],
    }),
  );
  const blob = (d: string): string => `blobs/sha256/${d}`;
  const dockerManifest = Buffer.from(
    JSON.stringify([{ Config: blob(configDigest), RepoTags: [`${repo}:${tag}`], Layers: [blob(layerDigest)] }]),
  );
  return tarArchive([
    { path: 'blobs', kind: 'dir', mode: 0o755 },
    { path: 'blobs/sha256', kind: 'dir', mode: 0o755 },
    { path: blob(configDigest), kind: 'file', mode: 0o644, data: config },
    { path: blob(layerDigest), kind: 'file', mode: 0o644, data: layer },
    { path: blob(manifestDigest), kind: 'file', mode: 0o644, data: manifest },
    { path: 'index.json', kind: 'file', mode: 0o644, data: index },
    { path: 'manifest.json', kind: 'file', mode: 0o644, data: dockerManifest },
    { path: 'oci-layout', kind: 'file', mode: 0o644, data: Buffer.from('{"imageLayoutVersion":"1.0.0"}') },
  ]);
}

/** `kubelet-hash:0.1.0` → repo `kubelet-hash`, tag `0.1.0`; a reference needs a tag (no digests). */
function splitRef(ref: string): { repo: string; tag: string } {
  const m = /^([a-z0-9][a-z0-9._/:-]*?):([\w][\w.-]{0,127})$/.exec(ref);
  if (!m || m[1]!.includes('@'))
    throw new Error(`--name: ${JSON.stringify(ref)} is no image reference with a tag (such as kubelet-hash:1.0.0)`);
  return { repo: m[1]!, tag: m[2]! };
}

/** The name containerd (and the kubelet) use: docker.io/library/… for a bare name, docker.io/… for a path. */
function fullReference(repo: string, tag: string): string {
  const first = repo.split('/')[0]!;
  const hasRegistry = repo.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost');
  const full = hasRegistry ? repo : repo.includes('/') ? `docker.io/${repo}` : `docker.io/library/${repo}`;
  return `${full}:${tag}`;
}

/** kubectl from bookworm's kubernetes-client, fetched with apt's own client into `dir`. */
function debianKubectl(dir: string): string {
  execFileSync('apt-get', ['download', '-qq', 'kubernetes-client'], {
    cwd: dir,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const deb = readdirSync(dir).find((f) => f.startsWith('kubernetes-client_') && f.endsWith('.deb'));
  if (!deb) throw new Error('apt-get download kubernetes-client left no .deb');
  const into = join(dir, 'root');
  execFileSync('dpkg-deb', ['-x', join(dir, deb), into]);
  return join(into, 'usr', 'bin', 'kubectl');
}

function main(): void {
  const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const { values } = parseArgs({
    options: {
      exe: {
        type: 'string',
        default: join(ROOT, 'exe', `kubelet-hash-linux-${process.arch === 'arm64' ? 'arm64' : 'x64'}`),
      },
      kubectl: { type: 'string' },
      name: { type: 'string', default: `kubelet-hash:${version}` },
      out: { type: 'string', default: join(ROOT, 'exe', 'kubelet-hash-image.tar') },
    },
  });
  const exe = resolve(values.exe);
  if (!existsSync(exe)) {
    execFileSync(
      'npx',
      [
        'tsx',
        join(ROOT, 'scripts', 'build-exe.ts'),
        '--arch',
        process.arch === 'arm64' ? 'arm64' : 'x64',
        '--out',
        dirname(exe),
      ],
      {
        stdio: 'inherit',
      },
    );
  }
  const work = mkdtempSync(join(tmpdir(), 'kubelet-hash-image-'));
  try {
    const kubectl = values.kubectl !== undefined ? resolve(values.kubectl) : debianKubectl(work);
    const layer = tarArchive(imageEntries({ exe, kubectl, sh: '/bin/dash' }));
    const archive = imageArchive(layer, values.name, ['/kubelet-hash', '--help']);
    mkdirSync(dirname(resolve(values.out)), { recursive: true });
    writeFileSync(resolve(values.out), archive);
    console.log(
      `wrote ${resolve(values.out)} (${values.name}, ${(statSync(resolve(values.out)).size / 1e6).toFixed(1)} MB)`,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main();
