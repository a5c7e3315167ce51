/**
 * Safe verdicts (issue 9 item 5, library side): misuse is refused with a typed error that says
 * what was given, never turned into a hash or a restart verdict.
 */
import { describe, expect, it } from 'vitest';
import {
  containerChanged,
  hashContainer,
  predictRestarts,
  preimage,
  translateHash,
  DecodeError,
  HashFormatError,
  KubeletHashError,
  OptionError,
  RecordError,
  type ContainerRecordInfo,
} from '../../src/index.js';
import { isKubeletHashError } from '../../src/errors.js';
import { NOT_CONTAINER_KEYS } from '../../src/pod/container-shape.js';

const app = { name: 'app', image: 'nginx:1.27' };
const v = { kubeletVersion: '1.29' };
const stored = hashContainer(app, v);

function errorOf(f: () => unknown): KubeletHashError {
  try {
    f();
  } catch (e) {
    if (isKubeletHashError(e)) return e;
    throw e;
  }
  throw new Error('expected a KubeletHashError');
}

describe('a Pod, List or workload where a container is expected', () => {
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [app] } };
  const list = { apiVersion: 'v1', kind: 'List', items: [pod] };
  const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', spec: { template: { spec: { containers: [app] } } } };
  const podSpec = { containers: [app] };

  it('is refused by every container function with NOT_A_CONTAINER naming what was given', () => {
    for (const doc of [pod, list, deployment, podSpec]) {
      for (const f of [
        () => hashContainer(doc, v),
        () => preimage(doc, v),
        () => containerChanged(doc, { hash: stored }, v),
        () => translateHash(doc, { from: '1.29', to: '1.30' }),
      ]) {
        const e = errorOf(f);
        expect(e).toBeInstanceOf(DecodeError);
        expect(e.code).toBe('NOT_A_CONTAINER');
      }
    }
    expect(errorOf(() => hashContainer(pod, v)).detail).toBe('found a Pod');
    expect(errorOf(() => hashContainer(JSON.stringify(list), v)).detail).toBe('found a List');
    expect(errorOf(() => hashContainer(podSpec, v)).detail).toContain('"containers"');
  });
});

describe('the Pod/workload member probe', () => {
  it('flags each listed member with a value, and nothing JSON.stringify would not send', () => {
    for (const key of NOT_CONTAINER_KEYS) {
      for (const input of [{ ...app, [key]: 'x' }, JSON.stringify({ ...app, [key]: null })]) {
        expect(errorOf(() => hashContainer(input, v)).code).toBe('NOT_A_CONTAINER');
      }
      const inherited = Object.assign(Object.create({ [key]: 'x' }) as object, app);
      const hidden = Object.defineProperty({ ...app }, key, { value: 'x', enumerable: false });
      for (const quiet of [{ ...app, [key]: undefined }, inherited, hidden])
        expect(hashContainer(quiet, v)).toBe(stored);
    }
  });
});

describe('a container without a name', () => {
  it('is refused (the apiserver requires one): MISSING_NAME at .name', () => {
    for (const c of [{ image: 'busybox' }, { name: '', image: 'busybox' }, {}]) {
      for (const release of ['1.12', '1.29', '1.33']) {
        const e = errorOf(() => hashContainer(c, { kubeletVersion: release }));
        expect(e).toMatchObject({ code: 'MISSING_NAME', path: ['name'] });
      }
      expect(errorOf(() => containerChanged(c, { hash: '1' }, v)).code).toBe('MISSING_NAME');
    }
    const e = errorOf(() =>
      predictRestarts({ spec: { containers: [{ image: 'a' }] } }, { spec: { containers: [{ image: 'b' }] } }, v),
    );
    expect(e).toMatchObject({ code: 'MISSING_NAME', path: ['spec', 'containers', 0, 'name'] });
  });

  it('a malformed field is still reported first', () => {
    expect(errorOf(() => hashContainer({ ports: [{ containerPort: '80' }] }, v)).code).toBe('INVALID_TYPE');
  });
});

describe('text input', () => {
  // The fused text path checks the root from its scan (no tree); it must refuse exactly what the
  // object path refuses, with the same code, path and detail, and hash exactly what it hashes.
  const pod = { apiVersion: 'v1', kind: 'Pod', spec: { containers: [app] } };
  const inputs: unknown[] = [
    app,
    pod,
    { kind: 'Deployment' },
    { containers: [app] },
    { name: 'a', image: 'b', status: null },
    { image: 'busybox' },
    { name: '', image: 'busybox' },
    { name: null, image: 'busybox' },
    { name: 7, image: 'busybox' },
    { name: 'a', metadata: {} },
    { name: 'a', nested: { kind: 'Pod', name: '' } },
  ];
  const outcome = (f: () => string): string => {
    try {
      return f();
    } catch (e) {
      if (!(e instanceof KubeletHashError)) throw e;
      return `${e.code} ${JSON.stringify(e.path)} ${e.detail}`;
    }
  };

  it('gets the verdict of the same object in every era, also with escapes and whitespace in the text', () => {
    for (const input of inputs) {
      const texts = [
        JSON.stringify(input),
        JSON.stringify(input, null, 2),
        JSON.stringify(input).replace(/"name"/, '"\\u006eame"'),
      ];
      for (const release of ['1.12', '1.29', '1.33']) {
        const expected = outcome(() => hashContainer(input as object, { kubeletVersion: release }));
        for (const text of texts)
          expect(outcome(() => hashContainer(text, { kubeletVersion: release }))).toBe(expected);
      }
    }
    expect(outcome(() => hashContainer('{"name":"\\u0061","image":"b"}', v))).toBe(
      hashContainer({ name: 'a', image: 'b' }, v),
    );
  });
});

describe('stored hashes given by the caller', () => {
  it('non-hex text is refused (INVALID_HASH), not read as 0 and turned into a restart', () => {
    for (const bad of ['zz', '0x311670a', ' 311670a', '', '-1', '1'.repeat(17)]) {
      const e = errorOf(() => containerChanged(app, { hash: bad }, v));
      expect(e).toBeInstanceOf(HashFormatError);
      expect(e.code).toBe('INVALID_HASH');
      expect(e.detail).toContain(bad);
    }
    expect(errorOf(() => containerChanged(app, { 'io.kubernetes.container.hash': 'oops' }, v)).path).toEqual([
      'status',
      'io.kubernetes.container.hash',
    ]);
    expect(errorOf(() => containerChanged(app, { hash: stored, hashWithoutResources: 'nope' }, v)).code).toBe(
      'INVALID_HASH',
    );
  });

  it('a status or record without the kubelet hash is refused (MISSING_HASH)', () => {
    const rec: ContainerRecordInfo = {
      kind: 'docker-inspect',
      runtime: 'docker',
      containerName: 'app',
      podName: 'p',
      podNamespace: 'ns',
      podUid: 'u',
      hashLocations: [],
    };
    for (const status of [{}, { 'io.kubernetes.pod.name': 'p' }, { hash: null }, rec]) {
      expect(errorOf(() => containerChanged(app, status, v))).toMatchObject({ code: 'MISSING_HASH' });
    }
  });

  it("the kubelet's own reading stays available: missing or malformed is 0, so the container restarts", () => {
    const k = { ...v, storedHashReading: 'kubelet' as const };
    expect(containerChanged(app, { hash: 'zz' }, k)).toMatchObject({ actual: '0', action: 'restart', ruleId: 'hash' });
    expect(containerChanged(app, {}, k)).toMatchObject({ actual: '0', action: 'restart' });
    expect(containerChanged(app, { hash: stored.toUpperCase() }, k)).toMatchObject({ action: 'keep' });
    expect(
      errorOf(() => containerChanged(app, { hash: '1' }, { ...v, storedHashReading: 'lenient' as never })).code,
    ).toBe('INVALID_OPTION');
  });
});

describe('feature gates', () => {
  const sidecar = { name: 'proxy', image: 'envoy:1', restartPolicy: 'Always' };
  const opts = (release: string, featureGates: Record<string, unknown>) =>
    ({ kubeletVersion: release, containerList: 'initContainers', featureGates }) as never;

  it('an unknown gate name is refused (UNKNOWN_FEATURE_GATE), as the kubelet refuses it', () => {
    const e = errorOf(() => containerChanged(sidecar, { hash: '1' }, opts('1.30', { SidecarContainer: true })));
    expect(e).toBeInstanceOf(OptionError);
    expect(e).toMatchObject({ code: 'UNKNOWN_FEATURE_GATE', path: ['options', 'featureGates', 'SidecarContainer'] });
    expect(e.expected).toContain(
      'ChangeContainerStatusOnKubeletRestart, ContainerRestartRules, InPlacePodLevelResourcesVerticalScaling, InPlacePodVerticalScaling, LegacySidecarContainers, PodLevelResources, RestartAllContainersOnContainerExits, SidecarContainers',
    );
    // A modelled gate the release does not have yet.
    expect(
      errorOf(() => containerChanged(sidecar, { hash: '1' }, opts('1.27', { SidecarContainers: true }))).code,
    ).toBe('UNKNOWN_FEATURE_GATE');
    expect(
      errorOf(() =>
        containerChanged(
          app,
          { hash: '1' },
          { kubeletVersion: '1.26', featureGates: { InPlacePodVerticalScaling: false } },
        ),
      ).code,
    ).toBe('UNKNOWN_FEATURE_GATE');
  });

  it('SidecarContainers still exists (GA, locked) at 1.36: setting it to its default is accepted, against it refused', () => {
    expect(containerChanged(sidecar, { hash: '1' }, opts('1.36', { SidecarContainers: true })).ruleId).toBe('hash');
    expect(
      errorOf(() => containerChanged(sidecar, { hash: '1' }, opts('1.36', { SidecarContainers: false }))).code,
    ).toBe('INVALID_OPTION');
  });

  it("accepts Go's bool syntax (strconv.ParseBool) and nothing else", () => {
    for (const t of ['1', 't', 'T', 'TRUE', 'true', 'True', true]) {
      expect(containerChanged(sidecar, { hash: '1' }, opts('1.32', { SidecarContainers: t })).ruleId).toBe('hash');
    }
    for (const f of ['0', 'f', 'F', 'FALSE', 'false', 'False', false]) {
      expect(containerChanged(sidecar, { hash: '1' }, opts('1.32', { SidecarContainers: f })).ruleId).toBe(
        'sidecar-as-init',
      );
    }
    for (const bad of ['yes', 'on', 'tRUE', ' true', 1, null]) {
      const e = errorOf(() => containerChanged(sidecar, { hash: '1' }, opts('1.32', { SidecarContainers: bad })));
      expect(e).toMatchObject({ code: 'INVALID_OPTION', path: ['options', 'featureGates', 'SidecarContainers'] });
    }
  });
});

describe('a record of another pod or container', () => {
  const rec = (over: Partial<ContainerRecordInfo>): ContainerRecordInfo => ({
    kind: 'crictl-inspect',
    runtime: 'containerd',
    containerName: 'app',
    podName: 'web-1',
    podNamespace: 'prod',
    podUid: 'uid-1',
    hash: stored,
    hashLocations: [],
    ...over,
  });
  const pod = { metadata: { uid: 'uid-1', name: 'web-1', namespace: 'prod' } };

  it('is refused (RECORD_MISMATCH) when its container name, pod uid, name or namespace differ', () => {
    expect(containerChanged(app, rec({}), { ...v, pod }).action).toBe('keep');
    expect(errorOf(() => containerChanged(app, rec({ containerName: 'sidecar' }), v))).toMatchObject({
      code: 'RECORD_MISMATCH',
      path: ['status', 'containerName'],
    });
    for (const [key, value] of [
      ['podUid', 'uid-2'],
      ['podName', 'web-2'],
      ['podNamespace', 'dev'],
    ] as const) {
      const e = errorOf(() => containerChanged(app, rec({ [key]: value }), { ...v, pod }));
      expect(e).toBeInstanceOf(RecordError);
      expect(e).toMatchObject({ code: 'RECORD_MISMATCH', path: ['status', key] });
    }
    // The kubelet's labels in a label map count too.
    const labels = {
      'io.kubernetes.container.hash': stored,
      'io.kubernetes.pod.uid': 'other',
      'io.kubernetes.container.name': 'app',
    };
    expect(errorOf(() => containerChanged(app, labels, { ...v, pod })).code).toBe('RECORD_MISMATCH');
  });

  it("a static pod's record carries the static UID, which its mirror pod holds in kubernetes.io/config.mirror", () => {
    const mirror = {
      metadata: {
        uid: 'mirror-uid',
        name: 'web-1',
        namespace: 'prod',
        annotations: { 'kubernetes.io/config.mirror': 'uid-1' },
      },
    };
    expect(containerChanged(app, rec({}), { ...v, pod: mirror }).action).toBe('keep');
  });
});

describe('inputs are never modified', () => {
  it('containerChanged and predictRestarts leave the caller’s objects as they were', () => {
    const c = {
      name: 'app',
      image: 'a',
      resizePolicy: [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }],
      resources: { limits: { memory: '1Gi' } },
    };
    const before = { spec: { containers: [c] } };
    const after = { spec: { containers: [{ ...c, resources: { limits: { memory: '2Gi' } } }] } };
    const status = {
      containerStatuses: [{ name: 'app', state: { running: {} }, resources: { limits: { memory: '1Gi' } } }],
    };
    const snapshot = JSON.stringify([before, after, status]);
    predictRestarts(before, after, { kubeletVersion: '1.33', podStatus: status });
    containerChanged(c, { hash: '1' }, { kubeletVersion: '1.33', state: status.containerStatuses[0]! });
    expect(JSON.stringify([before, after, status])).toBe(snapshot);
  });
});
