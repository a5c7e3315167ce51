/**
 * Objects from @kubernetes/client-node 1.4 (the release line that runs on Node 20): its
 * ObjectSerializer builds class instances (V1Pod, V1Container…) from what the apiserver sends.
 * They must hash exactly like the plain JSON they came from, for every oracle case and release.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { loadYaml, V1Container, V1Pod, V1PodSpec } from '@kubernetes/client-node';
import { ObjectSerializer } from '@kubernetes/client-node/dist/serializer.js';
import {
  applyApiserverDefaults,
  containerChanged,
  hashContainer,
  locateContainers,
  predictRestarts,
  supportedReleases,
  validateContainer,
  type ContainerFields,
  type ContainerInput,
  type PodInput,
} from '../../src/index.js';

const casesText = readFileSync(new URL('../../fixtures/oracle/cases.ndjson', import.meta.url), 'utf8');
/** Every case as a client has it: JSON.parse of the wire text (numbers as JS numbers). */
const cases: { id: string; container: object }[] = casesText
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as { case: string; container: object })
  .map((c) => ({ id: c.case, container: c.container }));

function outcome(fn: () => string): string {
  try {
    return fn();
  } catch (e) {
    return `error ${(e as { code?: string }).code ?? String(e)}`;
  }
}

describe('@kubernetes/client-node 1.4 objects', () => {
  it('V1Container from ObjectSerializer hashes as its plain JSON, for every oracle case and release', () => {
    const differences: string[] = [];
    let hashed = 0;
    for (const c of cases) {
      const model = ObjectSerializer.deserialize(c.container, 'V1Container') as V1Container;
      expect(Object.getPrototypeOf(model)).not.toBe(Object.prototype); // really a class instance
      for (const release of supportedReleases()) {
        const plain = outcome(() => hashContainer(c.container, { kubeletVersion: release }));
        const viaClient = outcome(() => hashContainer(model, { kubeletVersion: release }));
        if (plain !== viaClient) differences.push(`${c.id}@${release}: plain ${plain}, client-node ${viaClient}`);
        else if (!plain.startsWith('error')) hashed++;
      }
    }
    expect(differences).toEqual([]);
    // JSON.parse loses int64 values beyond 2^53 in a few cases: those are refused on both paths.
    expect(hashed).toBeGreaterThan(cases.length * supportedReleases().length * 0.95);
  });

  it('V1Pod from loadYaml: containers found and hashed as in the plain pod; metadata Dates are never read', () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', namespace: 'default', creationTimestamp: '2024-05-01T10:00:00Z' },
      spec: {
        initContainers: [{ name: 'init', image: 'busybox', command: ['true'] }],
        containers: [
          {
            name: 'app',
            image: 'nginx:1.25',
            ports: [{ containerPort: 80, protocol: 'TCP' }],
            resources: { limits: { cpu: '500m' } },
          },
        ],
      },
    };
    const model = loadYaml<V1Pod>(JSON.stringify(pod));
    expect(model.metadata?.creationTimestamp).toBeInstanceOf(Date);
    const plainFound = locateContainers(pod);
    const clientFound = locateContainers(model);
    expect(clientFound.map((f) => [f.list, f.index, f.name])).toEqual(plainFound.map((f) => [f.list, f.index, f.name]));
    for (const release of ['1.15', '1.24', '1.29', '1.36']) {
      for (const [i, f] of clientFound.entries()) {
        expect(hashContainer(f.container, { kubeletVersion: release })).toBe(
          hashContainer(plainFound[i]!.container, { kubeletVersion: release }),
        );
      }
    }
  });

  it('the API takes client-node types without casts', () => {
    // Built as client code builds them: instances of the generated model classes.
    const container: V1Container = Object.assign(new V1Container(), { name: 'app', image: 'nginx' });
    expectTypeOf(container).toExtend<ContainerInput>();
    const spec: V1PodSpec = Object.assign(new V1PodSpec(), { containers: [container] });
    const pod: V1Pod = Object.assign(new V1Pod(), { spec });
    expect(hashContainer(container, { kubeletVersion: '1.29' })).toBe(
      hashContainer('{"name":"app","image":"nginx"}', { kubeletVersion: '1.29' }),
    );
    expect(() => {
      validateContainer(container, { kubeletVersion: '1.29' });
    }).not.toThrow();
    expect(locateContainers(pod)).toHaveLength(1);
    const stored = applyApiserverDefaults(container, { kubeletVersion: '1.29', podSpec: spec });
    expect(stored['terminationMessagePath']).toBe('/dev/termination-log');
    const newer = Object.assign(new V1Container(), container, { image: 'nginx:1.27' });
    const changed: V1Pod = Object.assign(new V1Pod(), {
      spec: Object.assign(new V1PodSpec(), { containers: [newer] }),
    });
    expect(predictRestarts(pod, changed, { kubeletVersion: '1.29' }).containers).toHaveLength(1);
  });

  it('a Pod with status from ObjectSerializer (Dates in metadata, conditions and states): predictRestarts and containerChanged read it as its JSON', () => {
    const at = '2024-05-01T10:00:00Z';
    const wire = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', namespace: 'default', uid: 'u-1', creationTimestamp: at },
      spec: {
        restartPolicy: 'OnFailure',
        containers: [
          { name: 'app', image: 'nginx:1.27' },
          { name: 'job', image: 'busybox:1.36' },
        ],
      },
      status: {
        phase: 'Running',
        conditions: [{ type: 'Initialized', status: 'True', lastTransitionTime: at }],
        containerStatuses: [
          {
            name: 'app',
            image: 'nginx:1.27',
            imageID: '',
            ready: true,
            restartCount: 0,
            started: true,
            state: { running: { startedAt: at } },
          },
          {
            name: 'job',
            image: 'busybox:1.36',
            imageID: '',
            ready: false,
            restartCount: 0,
            state: { terminated: { exitCode: 0, startedAt: at, finishedAt: at } },
          },
        ],
      },
    };
    const edited = {
      ...wire,
      spec: {
        ...wire.spec,
        containers: [
          { name: 'app', image: 'nginx:1.28' },
          { name: 'job', image: 'busybox:1.37' },
        ],
      },
    };
    const pod = ObjectSerializer.deserialize(wire, 'V1Pod') as V1Pod;
    const newPod = ObjectSerializer.deserialize(edited, 'V1Pod') as V1Pod;
    expect(pod.status?.containerStatuses?.[0]?.state?.running?.startedAt).toBeInstanceOf(Date);
    expect(pod.status?.conditions?.[0]?.lastTransitionTime).toBeInstanceOf(Date);

    const viaClient = predictRestarts(pod, newPod, { kubeletVersion: '1.31', podStatus: pod.status });
    const plain = predictRestarts(wire, edited, { kubeletVersion: '1.31', podStatus: wire.status });
    expect(viaClient).toEqual(plain);
    // The running container restarts; the one that exited 0 under OnFailure is not started again.
    expect(viaClient.containers.map((c) => `${c.name}: ${c.action}`)).toEqual(['app: restart', 'job: stays-stopped']);

    const app = pod.spec!.containers[0]!;
    const stored = { hash: containerChanged(app, { hash: '0' }, { kubeletVersion: '1.31' }).expected };
    const state = pod.status!.containerStatuses![1]!;
    const job = pod.spec!.containers[1]!;
    const changed = containerChanged(job, stored, { kubeletVersion: '1.31', state, restartPolicy: 'OnFailure', pod });
    const changedPlain = containerChanged(wire.spec.containers[1]!, stored, {
      kubeletVersion: '1.31',
      state: wire.status.containerStatuses[1],
      restartPolicy: 'OnFailure',
    });
    expect(changed).toEqual(changedPlain);
  });

  it('V1Container and V1Pod fit the published input types (type-level)', () => {
    expectTypeOf<V1Container>().toExtend<ContainerFields>();
    expectTypeOf<V1Container>().toExtend<ContainerInput>();
    expectTypeOf<V1Pod>().toExtend<PodInput>();
    expectTypeOf<V1PodSpec>().toExtend<PodInput>();
    // The fields are typed: a number is no image.
    expectTypeOf<{ image: number }>().not.toExtend<ContainerFields>();
  });
});
