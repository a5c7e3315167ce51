/**
 * `npm run build:image`: an image archive of the agent, written by hand (no docker build, no
 * engine): one layer with the single executable at /kubelet-hash (also /usr/local/bin/kubelet-hash),
 * the shared libraries it and /bin/sh need (found with ldd, copied from this Debian machine),
 * Debian's dash as /bin/sh (the plan container's exit wrapper and the system-upgrade-controller
 * script run `sh -c`), and an SPDX SBOM at /sbom.spdx.json naming each part and the Debian package
 * it came from. No kubectl: the agent lists its node's pods itself (`fleet pods`), so the image
 * carries no second Kubernetes client to keep in support. The config carries the OCI
 * `org.opencontainers.image.*` labels. The archive holds both layouts, as `docker save` does from
 * Docker 25: an OCI image layout (`oci-layout`, `index.json`, `blobs/sha256/…`) for `ctr images
 * import` (under its tag and under its digest, so a digest reference resolves on the node without
 * a registry), and a docker-archive `manifest.json` naming the same blobs for `docker load`.
 * It prints the manifest's digest and the reference `fleet manifests --image` takes.
 *
 * Usage: tsx scripts/build-image.ts [--exe FILE] [--name REF] [--out FILE]
 *   --exe      the executable (default: exe/kubelet-hash-linux-x64, built with build:exe when missing)
 *   --name     image reference (default kubelet-hash:VERSION, i.e. docker.io/library/kubelet-hash:VERSION)
 *   --out      archive path (default exe/kubelet-hash-image.tar)
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
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
import { NODE_INTEGRITY, NODE_VERSION } from './node-release.js';

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
function imageEntries(files: { exe: string; sh: string }, sbom: (libs: readonly string[]) => Buffer): LayerEntry[] {
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
  file('/bin/sh', files.sh);
  // The loader and libraries at the paths ldd resolved (regular files: the image needs no /lib symlinks).
  const libs = [...new Set([...sharedLibraries(files.exe), ...sharedLibraries(files.sh)])].sort();
  for (const lib of libs) file(lib, realpathSync(lib), 0o755);
  file('/sbom.spdx.json', sbom(libs), 0o644);
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
function imageArchive(
  layer: Buffer,
  ref: string,
  cmd: readonly string[],
  labels: Record<string, string>,
): { archive: Buffer; digest: string } {
  const { repo, tag } = splitRef(ref);
  const layerDigest = sha256(layer);
  const config = Buffer.from(
    JSON.stringify({
      architecture: GOARCH,
      os: 'linux',
      config: { Env: [PATH_ENV], Cmd: cmd, WorkingDir: '/', Labels: labels },
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
      annotations: labels,
    }),
  );
  const manifestDigest = sha256(manifest);
  const fullName = fullReference(repo, tag);
  const entry = (name: string, annotations: Record<string, string> = {}) => ({
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    digest: `sha256:${manifestDigest}`,
    size: manifest.length,
    annotations: { 'io.containerd.image.name': name, ...annotations },
  });
  const index = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.index.v1+json',
      // The same manifest under the tag and under the digest: ctr import makes an image of each name.
      manifests: [
        entry(fullName, { 'org.opencontainers.image.ref.name': tag }),
        entry(`${fullName.slice(0, fullName.length - tag.length - 1)}@sha256:${manifestDigest}`),
      ],
    }),
  );
  const blob = (d: string): string => `blobs/sha256/${d}`;
  const dockerManifest = Buffer.from(
    JSON.stringify([{ Config: blob(configDigest), RepoTags: [`${repo}:${tag}`], Layers: [blob(layerDigest)] }]),
  );
  return {
    digest: `sha256:${manifestDigest}`,
    archive: tarArchive([
      { path: 'blobs', kind: 'dir', mode: 0o755 },
      { path: 'blobs/sha256', kind: 'dir', mode: 0o755 },
      { path: blob(configDigest), kind: 'file', mode: 0o644, data: config },
      { path: blob(layerDigest), kind: 'file', mode: 0o644, data: layer },
      { path: blob(manifestDigest), kind: 'file', mode: 0o644, data: manifest },
      { path: 'index.json', kind: 'file', mode: 0o644, data: index },
      { path: 'manifest.json', kind: 'file', mode: 0o644, data: dockerManifest },
      { path: 'oci-layout', kind: 'file', mode: 0o644, data: Buffer.from('{"imageLayoutVersion":"1.0.0"}') },
    ]),
  };
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

/** The Debian package (name and version) that installed `file`, or undefined (a file of no package). */
function debianPackageOf(file: string): { name: string; version: string } | undefined {
  // usr-merged systems register a library under /lib or /usr/lib: ask for both spellings.
  for (const path of new Set([file, realpathSync(file), file.replace(/^\/usr\//, '/'), `/usr${file}`])) {
    try {
      const owner = execFileSync('dpkg-query', ['-S', path], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
      const name = owner.split(':')[0]!.trim();
      const version = execFileSync('dpkg-query', ['-W', '-f', '${Version}', name], { encoding: 'utf8' }).trim();
      return { name, version };
    } catch {
      // not this spelling
    }
  }
  return undefined;
}

interface PackageJson {
  name: string;
  version: string;
  license: string;
  description?: string;
  repository?: { url?: string };
  dependencies?: Record<string, string>;
}

/**
 * The image's SBOM (SPDX 2.3, JSON): kubelet-hash, the Node.js it embeds (pinned by the npm
 * registry's integrity), the npm packages bundled into it, and per file copied from this machine
 * the Debian package and version it came from. `created` is SOURCE_DATE_EPOCH when set, so the
 * same inputs give the same image digest.
 */
function spdxSbom(pkg: PackageJson, files: { sh: string; libs: readonly string[] }, created: string): Buffer {
  const packages: Record<string, unknown>[] = [];
  const add = (name: string, version: string, extra: Record<string, unknown> = {}): void => {
    packages.push({
      SPDXID: `SPDXRef-Package-${packages.length}`,
      name,
      versionInfo: version,
      downloadLocation: 'NOASSERTION',
      filesAnalyzed: false,
      ...extra,
    });
  };
  add(pkg.name, pkg.version, { licenseDeclared: pkg.license, primaryPackagePurpose: 'APPLICATION' });
  const [algorithm, base64] = NODE_INTEGRITY[process.arch === 'arm64' ? 'arm64' : 'x64'].split('-');
  add('node', NODE_VERSION, {
    downloadLocation: `https://registry.npmjs.org/node-linux-${process.arch === 'arm64' ? 'arm64' : 'x64'}/-/node-linux-${process.arch === 'arm64' ? 'arm64' : 'x64'}-${NODE_VERSION}.tgz`,
    checksums: [{ algorithm: algorithm!.toUpperCase(), checksumValue: Buffer.from(base64!, 'base64').toString('hex') }],
    externalRefs: [
      {
        referenceCategory: 'PACKAGE-MANAGER',
        referenceType: 'purl',
        referenceLocator: `pkg:npm/node-linux-${process.arch === 'arm64' ? 'arm64' : 'x64'}@${NODE_VERSION}`,
      },
    ],
  });
  for (const [name, version] of Object.entries(pkg.dependencies ?? {}))
    add(name, version, {
      externalRefs: [
        {
          referenceCategory: 'PACKAGE-MANAGER',
          referenceType: 'purl',
          referenceLocator: `pkg:npm/${name.replace('@', '%40')}@${version}`,
        },
      ],
    });
  const debian = new Map<string, { version: string; files: string[] }>();
  for (const file of [files.sh, ...files.libs]) {
    const owner = debianPackageOf(file);
    const key = owner?.name ?? `file:${file}`;
    const at = debian.get(key) ?? { version: owner?.version ?? 'NOASSERTION', files: [] };
    at.files.push(file);
    debian.set(key, at);
  }
  for (const [name, { version, files: paths }] of [...debian].sort(([a], [b]) => (a < b ? -1 : 1)))
    add(name, version, {
      comment: `in the image: ${paths.join(', ')}`,
      ...(name.startsWith('file:')
        ? {}
        : {
            externalRefs: [
              {
                referenceCategory: 'PACKAGE-MANAGER',
                referenceType: 'purl',
                referenceLocator: `pkg:deb/debian/${name}@${version}`,
              },
            ],
          }),
    });
  const doc = {
    spdxVersion: 'SPDX-2.3',
    dataLicense: 'CC0-1.0',
    SPDXID: 'SPDXRef-DOCUMENT',
    name: `${pkg.name}-image-${pkg.version}`,
    documentNamespace: `https://spdx.org/spdxdocs/${pkg.name}-image-${pkg.version}-${sha256(Buffer.from(JSON.stringify(packages))).slice(0, 16)}`,
    creationInfo: { created, creators: ['Tool: kubelet-hash scripts/build-image.ts'] },
    packages,
    relationships: packages.map((p) => ({
      spdxElementId: 'SPDXRef-DOCUMENT',
      relationshipType: 'DESCRIBES',
      relatedSpdxElement: p['SPDXID'],
    })),
  };
  return Buffer.from(JSON.stringify(doc, null, 2) + '\n');
}

/** SOURCE_DATE_EPOCH as RFC 3339 (reproducible builds' convention), else the Unix epoch. */
function buildTime(): string {
  const epoch = process.env['SOURCE_DATE_EPOCH'];
  const seconds = epoch !== undefined && /^\d+$/.test(epoch) ? Number(epoch) : 0;
  return new Date(seconds * 1000).toISOString().replace(/\.000Z$/, 'Z');
}

function main(): void {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as PackageJson;
  const { version } = pkg;
  const { values } = parseArgs({
    options: {
      exe: {
        type: 'string',
        default: join(ROOT, 'exe', `kubelet-hash-linux-${process.arch === 'arm64' ? 'arm64' : 'x64'}`),
      },
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
    const created = buildTime();
    const sh = '/bin/dash';
    const layer = tarArchive(imageEntries({ exe, sh }, (libs) => spdxSbom(pkg, { sh, libs }, created)));
    const labels = {
      'org.opencontainers.image.title': pkg.name,
      'org.opencontainers.image.version': version,
      'org.opencontainers.image.created': created,
      'org.opencontainers.image.licenses': pkg.license,
      'org.opencontainers.image.description':
        'kubelet-hash node agent: single executable (Node.js ' +
        NODE_VERSION +
        ' embedded), /bin/sh (dash); SBOM at /sbom.spdx.json',
      ...(pkg.repository?.url
        ? { 'org.opencontainers.image.source': pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '') }
        : {}),
    };
    const { archive, digest } = imageArchive(layer, values.name, ['/kubelet-hash', '--help'], labels);
    mkdirSync(dirname(resolve(values.out)), { recursive: true });
    writeFileSync(resolve(values.out), archive);
    console.log(
      `wrote ${resolve(values.out)} (${values.name}, ${(statSync(resolve(values.out)).size / 1e6).toFixed(1)} MB)`,
    );
    // What fleet manifests --image takes: the tag for people, the digest for the nodes.
    console.log(`digest ${digest}`);
    console.log(`image ${values.name}@${digest}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main();
