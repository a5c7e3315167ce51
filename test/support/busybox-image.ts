/**
 * A container image without a registry: a docker-archive tarball (`manifest.json`, the image config
 * with `rootfs.diff_ids`, one layer) around Debian's static busybox, for `ctr images import`. The
 * default command sleeps, so the same image also serves as the sandbox ("pause") image.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The applets the test pods run (commands, probes, hooks). */
const APPLETS = ['sh', 'sleep', 'true', 'cat', 'env', 'nc', 'httpd', 'echo', 'ls', 'id'];

/** Go's GOARCH for this machine, as image configs name it. */
const GOARCH = ({ x64: 'amd64', arm64: 'arm64' } as Record<string, string>)[process.arch] ?? process.arch;

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/**
 * Writes the tarball under `dir` for image reference `ref` (e.g. `kubelet-hash.local/busybox:1`); returns its path.
 * A `variant` goes into the config's Env: the same busybox then makes an image of another digest.
 */
export function buildBusyboxImage(dir: string, busybox: string, ref: string, variant?: string): string {
  const rootfs = join(dir, 'rootfs');
  const archive = join(dir, 'archive');
  mkdirSync(join(rootfs, 'bin'), { recursive: true });
  for (const d of ['tmp', 'etc', 'dev', 'proc', 'sys']) mkdirSync(join(rootfs, d), { recursive: true });
  copyFileSync(busybox, join(rootfs, 'bin', 'busybox'));
  for (const a of APPLETS) symlinkSync('busybox', join(rootfs, 'bin', a));
  writeFileSync(join(rootfs, 'etc', 'passwd'), 'root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n');
  mkdirSync(archive, { recursive: true });
  const layer = join(archive, 'layer.tar');
  // Fixed owner and mtime: the same busybox gives the same layer digest.
  execFileSync('tar', ['--owner=0', '--group=0', '--numeric-owner', '--mtime=@0', '-C', rootfs, '-cf', layer, '.']);
  const config = Buffer.from(
    JSON.stringify({
      architecture: GOARCH,
      os: 'linux',
      config: {
        Cmd: ['/bin/sleep', '999999'],
        Env: ['PATH=/bin', ...(variant === undefined ? [] : [`KH_IMAGE_VARIANT=${variant}`])],
        WorkingDir: '/',
      },
      rootfs: { type: 'layers', diff_ids: [`sha256:${sha256(readFileSync(layer))}`] },
    }),
  );
  const configName = `${sha256(config)}.json`;
  writeFileSync(join(archive, configName), config);
  writeFileSync(
    join(archive, 'manifest.json'),
    JSON.stringify([{ Config: configName, RepoTags: [ref], Layers: ['layer.tar'] }]),
  );
  const tarball = join(dir, 'busybox-image.tar');
  execFileSync('tar', ['-C', archive, '-cf', tarball, 'manifest.json', configName, 'layer.tar']);
  return tarball;
}
