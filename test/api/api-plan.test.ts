/** planUpgrade: API pods joined with real-format runtime records, verified and translated. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { containerChanged } from '../../src/kubelet/index.js';
import { planUpgrade, type PlanEntry } from '../../src/plan/index.js';
import { hashContainer, hashContainerWithoutResources } from '../../src/hash-api/hash.js';
import { OptionError } from '../../src/errors.js';
import { readRuntimeRecords, rewriteRuntimeRecord, type ContainerRecordInfo } from '../../src/runtime-records/index.js';
import { oracleCase, oracleRow } from '../support/oracle.js';

const fixture = (f: string) => readFileSync(new URL(`../../fixtures/runtime/${f}`, import.meta.url), 'utf8');
const FILES = [
  'crictl-inspect-containerd.json',
  'crictl-inspect-crio.json',
  'docker-config.v2.json',
  'docker-inspect.json',
];
const TEXTS = FILES.map(fixture);
const NGINX = oracleCase('real-containerd-nginx-2022').container as Record<string, unknown>;
const SIMPLE = oracleCase('real-cri-dockerd-simple-pod-2024').container as Record<string, unknown>;

/** The API pods these records belong to (uids and names from the records, specs from the oracle cases). */
function podsFor(texts: string[], extra: (rec: ContainerRecordInfo) => Record<string, unknown> = () => ({})) {
  const pods = new Map<string, { metadata: Record<string, string>; spec: { containers: object[] } }>();
  for (const rec of texts.flatMap(readRuntimeRecords)) {
    if (rec.containerName === 'POD') continue;
    const spec = rec.containerName === 'nginx' ? NGINX : SIMPLE;
    pods.set(rec.podUid, {
      metadata: { uid: rec.podUid, name: rec.podName, namespace: rec.podNamespace },
      spec: { containers: [{ ...spec, ...extra(rec) }] },
    });
  }
  return [...pods.values()];
}

function byName(entries: PlanEntry[], name: string): PlanEntry[] {
  return entries.filter((e) => e.containerName === name);
}

describe('planUpgrade with the runtime fixtures', () => {
  it('1.30 → 1.31: every kubelet-made container is verified and rewritten; rewriting makes the new kubelet keep it', () => {
    const plan = planUpgrade({ pods: podsFor(TEXTS), records: TEXTS, from: '1.30', to: '1.31' });
    expect(plan.counts).toEqual({ keep: 1, rewrite: 4, 'will-restart': 0, unknown: 0 });
    expect(byName(plan.entries, 'POD')[0]).toMatchObject({ action: 'keep', record: 3 });
    for (const e of plan.entries.filter((x) => x.action === 'rewrite')) {
      const spec = e.containerName === 'nginx' ? NGINX : SIMPLE;
      const id = e.containerName === 'nginx' ? 'real-containerd-nginx-2022' : 'real-cri-dockerd-simple-pod-2024';
      expect(e.computed.from).toBe(oracleRow(id, '1.30').hash);
      expect(e.computed.to).toBe(oracleRow(id, '1.31').hash);
      expect(e.observed.hash).toBe(e.computed.from);
      expect(e.change.to.hash).toBe(e.computed.to);
      expect(e.change.to.hashWithoutResources).toBeUndefined(); // 1.31 has none; stored copies stay
      const text = TEXTS[e.record!]!;
      const rewritten = rewriteRuntimeRecord(text, e.change);
      expect(rewritten.length).toBe(text.length); // both hashes are 8 hex digits; only they change
      const rec = readRuntimeRecords(rewritten).find((r) => r.containerId === e.containerId)!;
      expect(rec.hash).toBe(e.computed.to);
      expect(containerChanged(spec, rec, { kubeletVersion: '1.31' }).changed).toBe(false);
      expect(
        containerChanged(
          spec,
          readRuntimeRecords(text).find((r) => r.containerId === e.containerId)!,
          { kubeletVersion: '1.31' },
        ).changed,
      ).toBe(true);
    }
  });

  it('1.16 → 1.30: the json hash is the same, so every container is kept', () => {
    const plan = planUpgrade({
      pods: podsFor(TEXTS),
      records: TEXTS,
      from: '1.16',
      to: '1.30',
      featureGates: { InPlacePodVerticalScaling: true },
    });
    expect(plan.counts).toEqual({ keep: 5, rewrite: 0, 'will-restart': 0, unknown: 0 });
  });

  it('a wrong source release is never rewritten: unknown, with the releases that would have written the hash', () => {
    const plan = planUpgrade({ pods: podsFor(TEXTS), records: TEXTS, from: '1.15', to: '1.31' });
    const nginx = byName(plan.entries, 'nginx')[0]!;
    expect(nginx.action).toBe('unknown');
    expect(nginx.reason).toContain('not what a 1.15 kubelet computes');
    expect(nginx.candidates).toContain('1.16');
    expect(nginx.candidates).toContain('1.30');
    expect(nginx.change).toBeUndefined();
  });

  it('a spec that differs from what runs is unknown (the stored hash is not reproduced)', () => {
    const plan = planUpgrade({
      pods: podsFor(TEXTS, () => ({ image: 'nginx:other' })),
      records: TEXTS,
      from: '1.30',
      to: '1.31',
    });
    expect(plan.counts.unknown).toBe(4);
    expect(
      plan.entries.filter((e) => e.action === 'unknown').every((e) => e.candidates === 'no supported release'),
    ).toBe(true);
  });

  it('hashWithoutResources is verified and rewritten when the to-kubelet reads it (1.30 → 1.29, gate on, BS/FF in the spec)', () => {
    // Go 1.22 (1.30) and Go 1.21 (1.29) escape \b differently, so the hashes differ between these releases.
    const spec = { ...SIMPLE, env: [{ name: 'E', value: 'a\bb' }] };
    const h30 = hashContainer(spec, { kubeletVersion: '1.30' });
    const w30 = hashContainerWithoutResources(spec, { kubeletVersion: '1.30' });
    const text = fixture('crictl-inspect-crio.json').replaceAll('62b86e75', h30).replaceAll('bd7cf28f', w30);
    const rec = readRuntimeRecords(text)[0]!;
    const pods = [
      { metadata: { uid: rec.podUid, name: rec.podName, namespace: 'default' }, spec: { containers: [spec] } },
    ];
    const plan = planUpgrade({
      pods,
      records: [text],
      from: '1.30',
      to: '1.29',
      featureGates: { InPlacePodVerticalScaling: true },
    });
    const e = plan.entries[0]!;
    expect(e.action).toBe('rewrite');
    const h29 = hashContainer(spec, { kubeletVersion: '1.29' });
    const w29 = hashContainerWithoutResources(spec, { kubeletVersion: '1.29' });
    expect(h29).not.toBe(h30);
    expect(e.change).toEqual({
      from: { hash: h30, hashWithoutResources: w30 },
      to: { hash: h29, hashWithoutResources: w29 },
      containerId: rec.containerId,
    });
    const after = readRuntimeRecords(rewriteRuntimeRecord(text, e.change!))[0]!;
    expect([after.hash, after.hashWithoutResources]).toEqual([h29, w29]);
  });

  it('joins by pod uid + container name and reports what does not join', () => {
    const pods = podsFor(TEXTS);
    const nginxPod = pods.find((p) => p.metadata['name'] === 'nginx')!;
    nginxPod.spec.containers.push({ name: 'sidecar', image: 'busybox' });
    const orphan: ContainerRecordInfo = {
      kind: 'crictl-inspect',
      runtime: 'containerd',
      containerName: 'x',
      podName: 'gone',
      podNamespace: 'default',
      podUid: 'no-such-uid',
      hash: '1',
      hashLocations: [],
    };
    const stranger: ContainerRecordInfo = { ...orphan, containerName: 'renamed', podUid: nginxPod.metadata['uid']! };
    const unhashed: ContainerRecordInfo = {
      ...orphan,
      containerName: 'nginx',
      podUid: nginxPod.metadata['uid']!,
      hashLocations: [],
    };
    delete unhashed.hash;
    const plan = planUpgrade({
      pods: { items: pods },
      records: [...TEXTS, orphan, stranger, unhashed, '{"not":"a record"}'],
      from: '1.30',
      to: '1.31',
    });
    expect(plan.entries.find((e) => e.record === 4)).toMatchObject({
      action: 'unknown',
      reason: expect.stringContaining('no API pod has uid'),
    });
    expect(plan.entries.find((e) => e.record === 5)).toMatchObject({
      action: 'unknown',
      reason: expect.stringContaining('no container named "renamed"'),
    });
    expect(plan.entries.find((e) => e.record === 6)).toMatchObject({ action: 'will-restart', containerName: 'nginx' });
    expect(plan.entries.find((e) => e.record === 7)).toMatchObject({
      action: 'unknown',
      reason: expect.stringContaining('cannot read the record'),
    });
    const missing = plan.entries.find((e) => e.containerName === 'sidecar')!;
    expect(missing).toMatchObject({ action: 'unknown', reason: expect.stringContaining('no runtime record') });
    expect(missing.record).toBeUndefined();
  });

  it('init containers are kept (never compared); sidecars are rewritten even for a kubelet that does not compare them', () => {
    const uid = 'u-1';
    const init = { name: 'init', image: 'busybox' };
    const sidecar = { name: 'proxy', image: 'envoy', restartPolicy: 'Always' };
    const pods = [
      {
        metadata: { uid, name: 'p', namespace: 'ns' },
        spec: { initContainers: [init, sidecar], containers: [{ name: 'app', image: 'a' }] },
      },
    ];
    const rec = (c: { name: string }, hash: string): ContainerRecordInfo => ({
      kind: 'crictl-inspect',
      runtime: 'containerd',
      containerName: c.name,
      podName: 'p',
      podNamespace: 'ns',
      podUid: uid,
      hash,
      hashLocations: ['x'],
    });
    const records = [
      rec(init, hashContainer(init, { kubeletVersion: '1.30' })),
      rec(sidecar, hashContainer(sidecar, { kubeletVersion: '1.30' })),
    ];
    const toOld = planUpgrade({ pods, records, from: '1.30', to: '1.31' });
    // 1.31 does not compare sidecars, but 1.32+ does: rewriting now keeps the next upgrade from restarting it.
    expect(toOld.entries.slice(0, 2).map((e) => e.action)).toEqual(['keep', 'rewrite']);
    expect(toOld.entries[1]).toMatchObject({
      ruleId: 'sidecar-not-compared',
      change: { to: { hash: hashContainer(sidecar, { kubeletVersion: '1.31' }) } },
    });
    const toNew = planUpgrade({ pods, records, from: '1.30', to: '1.32' });
    expect(toNew.entries.slice(0, 2).map((e) => [e.role, e.action])).toEqual([
      ['init', 'keep'],
      ['sidecar', 'rewrite'],
    ]);
    expect(toNew.entries[2]).toMatchObject({ containerName: 'app', action: 'unknown' }); // no record for it
  });

  it('deduplicates identical specs: 10,000 DaemonSet containers hash two specs', () => {
    const specs = [
      { name: 'agent', image: 'agent:1', resources: { limits: { cpu: '100m' } } },
      { name: 'exporter', image: 'exporter:2', ports: [{ containerPort: 9100 }] },
    ];
    const h = specs.map((s) => hashContainer(s, { kubeletVersion: '1.29' }));
    const pods: object[] = [];
    const records: ContainerRecordInfo[] = [];
    for (let i = 0; i < 5000; i++) {
      const uid = `uid-${i}`;
      pods.push({
        metadata: { uid, name: `ds-${i}`, namespace: 'kube-system' },
        spec: { containers: specs.map((s) => ({ ...s })) },
      });
      specs.forEach((s, k) =>
        records.push({
          kind: 'crictl-inspect',
          runtime: 'containerd',
          containerId: `${i}-${k}`,
          containerName: s.name,
          podName: `ds-${i}`,
          podNamespace: 'kube-system',
          podUid: uid,
          hash: h[k]!,
          hashLocations: ['status.annotations'],
        }),
      );
    }
    const t = performance.now();
    const plan = planUpgrade({ pods, records, from: '1.29', to: '1.33' });
    const ms = performance.now() - t;
    expect(plan.distinctSpecs).toBe(2);
    expect(plan.counts.rewrite).toBe(10000);
    expect(plan.entries[9999]!.change).toEqual({
      from: { hash: h[1] },
      to: { hash: hashContainer(specs[1]!, { kubeletVersion: '1.33' }) },
      containerId: '4999-1',
    });
    expect(ms).toBeLessThan(5000);
  });

  it('validates its input with typed errors', () => {
    expect(() => planUpgrade({ pods: [{ metadata: {}, spec: {} }], records: [], from: '1.30', to: '1.31' })).toThrow(
      OptionError,
    );
    try {
      planUpgrade({ pods: [{ metadata: {}, spec: {} }], records: [], from: '1.30', to: '1.31' });
    } catch (e) {
      expect((e as OptionError).path).toEqual(['input', 'pods', 0, 'metadata', 'uid']);
    }
    expect(() => planUpgrade({ pods: [], records: [42 as never], from: '1.30', to: '1.31' })).toThrow(OptionError);
    expect(() =>
      planUpgrade({
        pods: [],
        records: [],
        from: '1.30',
        to: '1.26',
        featureGates: { InPlacePodVerticalScaling: true },
      }),
    ).toThrow(OptionError);
  });
});
