/** Upstream test vectors and real-world hashes quoted in fixtures/oracle/README.md. */
import { describe, expect, it } from 'vitest';
import { hashContainer, hashContainerWithoutResources, supportedReleases } from '../../src/index.js';
import { oracleCase } from '../support/oracle.js';

/** The releases the registry supports from 1.`from` to 1.`to` (to the newest without `to`). */
const range = (from: number, to = Infinity): string[] =>
  supportedReleases().filter((r) => {
    const minor = Number(r.split('.')[1]);
    return minor >= from && minor <= to;
  });

describe('upstream and real-world vectors', () => {
  const sample = oracleCase('k8s-sampleContainer').container as object;
  const testHash = oracleCase('k8s-TestHashContainer').container as object;

  it('covers every release of the registry, the newest included', () => {
    const all = supportedReleases();
    expect(all).toContain('1.37');
    expect([...range(8, 15), ...range(16, 30), ...range(31)]).toEqual(all);
    expect(range(31).at(-1)).toBe(all.at(-1));
  });

  it('container_hash_test.go sampleContainer: 0x311670a for 1.16–1.30, 0x8e45cbd0 from 1.31', () => {
    for (const v of range(16, 30)) expect(hashContainer(sample, { kubeletVersion: v })).toBe('311670a');
    for (const v of range(31)) expect(hashContainer(sample, { kubeletVersion: v })).toBe('8e45cbd0');
  });

  it('helpers_test.go TestHashContainer: 0x3c42280f for 1.16–1.30', () => {
    for (const v of range(16, 30)) expect(hashContainer(testHash, { kubeletVersion: v })).toBe('3c42280f');
    // From 1.31 only name and image are hashed: the same as sampleContainer's.
    for (const v of range(31)) expect(hashContainer(testHash, { kubeletVersion: v })).toBe('8e45cbd0');
  });

  it('sampleContainer legacy hashes: 856b831b at 1.8, f39e1ad at 1.9–1.15', () => {
    expect(hashContainer(sample, { kubeletVersion: '1.8' })).toBe('856b831b');
    for (const v of range(9, 15)) expect(hashContainer(sample, { kubeletVersion: v })).toBe('f39e1ad');
  });

  it('sampleContainer hashWithoutResources at 1.27–1.30 is e8022015', () => {
    for (const v of range(27, 30))
      expect(hashContainerWithoutResources(sample, { kubeletVersion: v })).toBe('e8022015');
  });

  it('real containerd nginx (9624f5a5) and cri-dockerd pod (62b86e75)', () => {
    const nginx = oracleCase('real-containerd-nginx-2022').container as object;
    const dockerd = oracleCase('real-cri-dockerd-simple-pod-2024').container as object;
    for (const v of range(16, 30)) {
      expect(hashContainer(nginx, { kubeletVersion: v })).toBe('9624f5a5');
      expect(hashContainer(dockerd, { kubeletVersion: v })).toBe('62b86e75');
    }
    for (const v of range(31)) {
      expect(hashContainer(nginx, { kubeletVersion: v })).toBe('a564281e');
      expect(hashContainer(dockerd, { kubeletVersion: v })).toBe('d01fedb2');
    }
  });

  it('qiniu kube-proxy spew text from a real 1.9 kubelet hashes to ecd8dffb', () => {
    expect(
      hashContainer(oracleCase('real-qiniu-kube-proxy-1.9').container as object, { kubeletVersion: 'v1.9.11' }),
    ).toBe('ecd8dffb');
  });
});
