import { describe, expect, it } from 'vitest';
import { ReleaseError, releaseInfo, supportedReleases } from '../../src/index.js';
import { MODEL_VERSIONS, releaseModel } from '../../src/models/catalog.js';

describe('release registry', () => {
  it('lists one release per model, in order, from 1.8', () => {
    const all = supportedReleases();
    expect(all).toEqual(MODEL_VERSIONS);
    expect(all[0]).toBe('1.8');
    expect(all.map((r) => releaseInfo(r).minor)).toEqual(all.map((_, i) => i + 8));
  });

  it('agrees with every extracted model on algorithm, hashWithoutResources and JSON escaping', () => {
    for (const r of supportedReleases()) {
      const info = releaseInfo(r);
      const model = releaseModel(r);
      expect(info.algorithm).toBe(model.kubeletHashAlgorithm);
      expect(info.hashWithoutResources).toBe(model.hasHashWithoutResources);
      const escapes = model.jsonEncoderEscapes;
      expect(info.jsonEscapes).toBe(escapes === null ? null : escapes.startsWith('go>=1.22') ? 'go1.22' : 'pre-go1.22');
      expect(info.storageKeys.hash).toBe('io.kubernetes.container.hash');
      expect(info.storageKeys.hashWithoutResources !== null).toBe(info.hashWithoutResources);
    }
  });

  it('marks only 1.27, 1.28 and 1.29 as having later patch builds with Go 1.22 escaping', () => {
    const marked = supportedReleases().filter((r) => releaseInfo(r).laterPatchJsonEscapes !== null);
    expect(marked).toEqual(['1.27', '1.28', '1.29']);
    expect(releaseInfo('1.29').laterPatchJsonEscapes).toBe('go1.22');
  });

  it('restarts running sidecars on a hash change from 1.32 on', () => {
    expect(supportedReleases().filter((r) => releaseInfo(r).restartsSidecarsOnHashChange)[0]).toBe('1.32');
    expect(releaseInfo('1.31').restartsSidecarsOnHashChange).toBe(false);
  });

  it('resolves patch versions and node version strings to their minor', () => {
    for (const v of ['1.27', '1.27.4', 'v1.27.4', 'v1.27.4-eks-2d98532', 'v1.27.16+k3s1', ' 1.27.0 ']) {
      expect(releaseInfo(v).release).toBe('1.27');
    }
  });

  it('refuses malformed and unsupported versions with typed errors naming the range', () => {
    for (const bad of ['', '1', '1.x', '2.0', 'v1.027', '1.27.4.5', 'one']) {
      expect(() => releaseInfo(bad)).toThrow(ReleaseError);
    }
    try {
      releaseInfo('1.7.16');
      expect.fail('1.7 accepted');
    } catch (e) {
      expect(e).toBeInstanceOf(ReleaseError);
      expect((e as ReleaseError).code).toBe('UNSUPPORTED_RELEASE');
      expect((e as ReleaseError).expected).toBe(`a kubelet release from 1.8 to ${supportedReleases().at(-1)!}`);
    }
  });
});
