/** containerChanged (the kubelet's per-release restart rule) and predictRestarts. */
import { describe, expect, it } from 'vitest';
import { containerChanged, predictRestarts } from '../../src/kubelet/index.js';
import { hashContainer, hashContainerWithoutResources } from '../../src/hash-api/hash.js';
import { OptionError, ReleaseError } from '../../src/errors.js';
import { supportedReleases } from '../../src/releases/release-info.js';
import { oracleCase, oracleCases, oracleExpected } from '../support/oracle.js';

const RELEASES = supportedReleases();
const HASH = 'io.kubernetes.container.hash';
const WR = 'io.kubernetes.container.hashWithoutResources';
const sample = oracleCase('k8s-sampleContainer').container as Record<string, unknown>;
const resized = { ...sample, resources: { limits: { foo: '2G' }, requests: { foo: '500M' } } };

describe('containerChanged: every release compares the stored hash', () => {
  it('the oracle hash of each case and release is "unchanged"; the next era’s hash is "changed"', () => {
    const rows = oracleExpected();
    let n = 0;
    for (const row of rows) {
      const c = oracleCases().find((x) => x.id === row.case)!.container as { name?: unknown };
      if (typeof c.name !== 'string' || c.name === '') {
        // Nameless oracle rows exercise HashContainer's arithmetic; no apiserver serves such a container.
        expect(() => containerChanged(c, { [HASH]: row.hash }, { kubeletVersion: row.version })).toThrow(
          /MISSING_NAME/,
        );
        n++;
        continue;
      }
      const same = containerChanged(c, { [HASH]: row.hash }, { kubeletVersion: row.version });
      expect(same.changed).toBe(false);
      expect(same.expected).toBe(row.hash);
      expect(same.actual).toBe(row.hash);
      n++;
    }
    expect(n).toBe(oracleCases().length * supportedReleases().length);
    // 1.15 → 1.16 changed algorithm: the 1.15 hash stored by a container makes 1.16 restart it.
    for (const c of oracleCases().filter(
      (x) =>
        typeof (x.container as { name?: unknown }).name === 'string' && (x.container as { name: string }).name !== '',
    )) {
      const old = rows.find((r) => r.case === c.id && r.version === '1.15')!.hash;
      const r = containerChanged(c.container as object, { hash: old }, { kubeletVersion: '1.16' });
      expect(r.changed).toBe(true);
      expect(r.rule).toBe('hash');
      expect(r.reason).toContain('definition changed');
    }
  });

  it('refuses a caller-given status without a hash or with non-hex text; reads them as 0 only when asked to read as the kubelet does', () => {
    const v = { kubeletVersion: '1.29' };
    expect(() => containerChanged(sample, {}, v)).toThrow(/MISSING_HASH/);
    expect(() => containerChanged(sample, { [HASH]: 'not-hex' }, v)).toThrow(/INVALID_HASH/);
    expect(() => containerChanged(sample, { 'io.kubernetes.container.restartCount': '0' }, v)).toThrow(/MISSING_HASH/);
    const k = { ...v, storedHashReading: 'kubelet' as const };
    expect(containerChanged(sample, {}, k)).toMatchObject({ changed: true, actual: '0', expected: '311670a' });
    expect(containerChanged(sample, { [HASH]: 'not-hex' }, k)).toMatchObject({ changed: true, actual: '0' });
    expect(containerChanged(sample, { 'io.kubernetes.container.restartCount': '0' }, k)).toMatchObject({
      changed: true,
      actual: '0',
    });
  });

  it('reads hex of any case, docker labels, numbers', () => {
    const v = { kubeletVersion: '1.29' };
    expect(containerChanged(sample, { [HASH]: '0311670A' }, v)).toMatchObject({ changed: false, actual: '311670a' });
    expect(
      containerChanged(
        sample,
        { 'annotation.io.kubernetes.container.hash': '311670a', 'io.kubernetes.pod.name': 'p' },
        v,
      ).changed,
    ).toBe(false);
    expect(containerChanged(sample, { hash: 0x311670a }, v).changed).toBe(false);
    expect(containerChanged(sample, { hash: 0x311670an }, v).changed).toBe(false);
    expect(containerChanged(JSON.stringify(sample), { hash: '311670a' }, v).changed).toBe(false);
    expect(() => containerChanged(sample, { hash: -5 }, v)).toThrow(OptionError);
    expect(() => containerChanged(sample, 'x' as never, v)).toThrow(OptionError);
    expect(() => containerChanged(sample, { hash: '1' }, { kubeletVersion: '2.0' })).toThrow(ReleaseError);
    expect(() =>
      containerChanged(sample, { hash: '1' }, { kubeletVersion: '1.29', containerList: 'nope' as never }),
    ).toThrow(OptionError);
  });

  it('restarts whatever the restartPolicy: the rule does not look at the pod', () => {
    for (const v of RELEASES) {
      const r = containerChanged(
        resized,
        { hash: hashContainer(sample, { kubeletVersion: v }) },
        { kubeletVersion: v },
      );
      // 1.31+ hashes only name and image: a resources change is invisible there.
      expect(r.changed, v).toBe(Number(v.split('.')[1]) < 31);
    }
  });
});

describe('containerChanged: 1.27–1.30 in-place resize (InPlacePodVerticalScaling)', () => {
  const stored = (v: string) => ({
    [HASH]: hashContainer(sample, { kubeletVersion: v }),
    [WR]: hashContainerWithoutResources(sample, { kubeletVersion: v }),
  });

  it('with the gate on, a resources-only change does not restart (both hashes are compared)', () => {
    for (const v of ['1.27', '1.28', '1.29', '1.30']) {
      const r = containerChanged(resized, stored(v), {
        kubeletVersion: v,
        featureGates: { InPlacePodVerticalScaling: true },
      });
      expect(r).toMatchObject({
        changed: false,
        hashDiffers: true,
        rule: 'hash-and-hash-without-resources',
        expectedWithoutResources: 'e8022015',
        actualWithoutResources: 'e8022015',
      });
      expect(r.reason).toContain('hash without resources matches');
      expect(r.assumptions.join('; ')).toContain('resize rule was not evaluated'); // no running resources given
    }
  });

  it('with the gate on, a change beyond resources restarts; so does a missing without-resources hash (0)', () => {
    const v = '1.28';
    const gates = { InPlacePodVerticalScaling: true };
    const imageChanged = { ...resized, image: 'foo/image:v2' };
    expect(containerChanged(imageChanged, stored(v), { kubeletVersion: v, featureGates: gates }).changed).toBe(true);
    const noWr = containerChanged(resized, { [HASH]: stored(v)[HASH] }, { kubeletVersion: v, featureGates: gates });
    expect(noWr).toMatchObject({ changed: true, actualWithoutResources: '0' });
  });

  it('alpha gate off by default (1.27–1.30), and never for static pods', () => {
    const v = '1.29';
    expect(containerChanged(resized, stored(v), { kubeletVersion: v })).toMatchObject({ changed: true, rule: 'hash' });
    expect(
      containerChanged(resized, stored(v), {
        kubeletVersion: v,
        featureGates: { InPlacePodVerticalScaling: true },
        staticPod: true,
      }),
    ).toMatchObject({ changed: true, rule: 'hash' });
    expect(
      containerChanged(resized, stored(v), {
        kubeletVersion: v,
        featureGates: { InPlacePodVerticalScaling: false, SidecarContainers: true },
      }).changed,
    ).toBe(true);
  });

  it('the gate does not exist before 1.27 (a kubelet refuses it); from 1.31 the hash ignores resources anyway', () => {
    expect(() =>
      containerChanged(sample, {}, { kubeletVersion: '1.26', featureGates: { InPlacePodVerticalScaling: true } }),
    ).toThrow(OptionError);
    const r = containerChanged(
      resized,
      { hash: hashContainer(sample, { kubeletVersion: '1.33' }) },
      { kubeletVersion: '1.33' },
    );
    expect(r).toMatchObject({ changed: false, rule: 'hash' });
  });
});

describe('containerChanged: init, sidecar and ephemeral containers', () => {
  const sidecar = { name: 'proxy', image: 'envoy:1', restartPolicy: 'Always' };
  const newer = { ...sidecar, image: 'envoy:2' };
  const storedOld = (v: string) => ({ hash: hashContainer(sidecar, { kubeletVersion: v }) });

  it('running sidecars are restarted on a hash change from 1.32 on, not before', () => {
    for (const v of RELEASES) {
      const r = containerChanged(newer, storedOld(v), { kubeletVersion: v, containerList: 'initContainers' });
      expect(r.hashDiffers).toBe(true);
      expect(r.role).toBe('sidecar');
      expect(r.changed, v).toBe(Number(v.split('.')[1]) >= 32);
      if (!r.changed) expect(r.rule).toBe('not-compared');
    }
  });

  it('ordinary init containers and ephemeral containers are never compared', () => {
    const init = { name: 'migrate', image: 'm:1' };
    for (const list of ['initContainers', 'ephemeralContainers'] as const) {
      const r = containerChanged(
        { ...init, image: 'm:2' },
        { hash: hashContainer(init, { kubeletVersion: '1.36' }) },
        { kubeletVersion: '1.36', containerList: list },
      );
      expect(r).toMatchObject({
        changed: false,
        hashDiffers: true,
        rule: 'not-compared',
        role: list === 'initContainers' ? 'init' : 'ephemeral',
      });
    }
  });
});

describe('predictRestarts', () => {
  const pod = (containers: object[], initContainers: object[] = []) => ({
    metadata: { name: 'p', uid: 'u' },
    spec: { initContainers, containers },
  });
  const app = { name: 'app', image: 'nginx:1.25', env: [{ name: 'A', value: '1' }] };
  const side = { name: 'log', image: 'fluent:1' };

  it('OpenKruise-style image update: only the container whose image changed restarts, and says why', () => {
    for (const v of ['1.14', '1.20', '1.31', '1.36']) {
      const p = predictRestarts(pod([app, side]), pod([{ ...app, image: 'nginx:1.27' }, side]), { kubeletVersion: v });
      expect(p.restarts).toBe(1);
      expect(p.containers.map((c) => [c.name, c.action])).toEqual([
        ['app', 'restart'],
        ['log', 'keep'],
      ]);
      expect(p.containers[0]!.hashedChanges).toEqual(['.image']);
      expect(p.containers[0]!.reason).toContain('.image');
    }
  });

  it('an env change restarts before 1.31 and is ignored from 1.31 (only name and image are hashed)', () => {
    const next = pod([{ ...app, env: [{ name: 'A', value: '2' }] }]);
    const old = predictRestarts(pod([app]), next, { kubeletVersion: '1.30' });
    expect(old.containers[0]).toMatchObject({
      action: 'restart',
      changes: ['.env[0].value'],
      hashedChanges: ['.env[0].value'],
    });
    const now = predictRestarts(pod([app]), next, { kubeletVersion: '1.31' });
    expect(now.containers[0]).toMatchObject({ action: 'keep', changes: ['.env[0].value'], hashedChanges: [] });
    expect(now.containers[0]!.reason).toContain('not hashed');
  });

  it('a resources change at 1.29 restarts unless InPlacePodVerticalScaling is on', () => {
    const withRes = { ...app, resources: { limits: { cpu: '1' } } };
    const next = pod([{ ...withRes, resources: { limits: { cpu: '2' } } }]);
    expect(predictRestarts(pod([withRes]), next, { kubeletVersion: '1.29' }).restarts).toBe(1);
    const on = predictRestarts(pod([withRes]), next, {
      kubeletVersion: '1.29',
      featureGates: { InPlacePodVerticalScaling: true },
    });
    expect(on.containers[0]).toMatchObject({
      action: 'keep',
      rule: 'hash-and-hash-without-resources',
      changes: ['.resources.limits.cpu'],
    });
  });

  it('new, removed and sidecar containers', () => {
    const sc = { name: 'proxy', image: 'envoy:1', restartPolicy: 'Always' };
    const before = pod([app], [sc]);
    const after = pod([{ name: 'new', image: 'x' }], [{ ...sc, image: 'envoy:2' }]);
    const at31 = predictRestarts(before, after, { kubeletVersion: '1.31' });
    expect(at31.containers.map((c) => [c.name, c.action])).toEqual([
      ['proxy', 'keep'],
      ['new', 'start'],
      ['app', 'remove'],
    ]);
    const at32 = predictRestarts(before, after, { kubeletVersion: '1.32' });
    expect(at32.containers[0]).toMatchObject({ name: 'proxy', role: 'sidecar', action: 'restart' });
    expect(at32.restarts).toBe(1);
  });

  it('accepts workloads with a pod template and validates its options', () => {
    const dep = (image: string) => ({
      kind: 'Deployment',
      spec: { template: { spec: { containers: [{ ...app, image }] } } },
    });
    expect(predictRestarts(dep('a'), dep('b'), { kubeletVersion: '1.8' }).restarts).toBe(1);
    expect(() => predictRestarts(dep('a'), dep('b'), {})).toThrow(OptionError);
  });
});
