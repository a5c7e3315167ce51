/**
 * The pod decision's explicit inputs (sandbox, probe results, status entries): typed errors naming
 * the path, what is assumed when an input is missing, and no change to the caller's objects.
 */
import { describe, expect, it } from 'vitest';
import { OptionError, predictRestarts } from '../../src/index.js';

const pod = {
  kind: 'Pod',
  spec: {
    containers: [{ name: 'web', image: 'nginx', livenessProbe: { tcpSocket: { port: 80 } } }],
    ephemeralContainers: [{ name: 'debug', image: 'busybox' }],
  },
};
const running = { containerStatuses: [{ name: 'web', state: { running: {} } }] };

function thrown(f: () => unknown): OptionError {
  try {
    f();
  } catch (e) {
    if (e instanceof OptionError) return e;
    throw e;
  }
  throw new Error('did not throw');
}

describe('pod decision inputs', () => {
  it('refuses probe results for a container the pod does not have, or of the wrong shape, naming the path', () => {
    const unknown = thrown(() =>
      predictRestarts(pod, pod, { kubeletVersion: '1.30', probes: { api: { livenessProbe: 'failure' } } }),
    );
    expect([unknown.code, unknown.path]).toEqual(['INVALID_OPTION', ['options', 'probes', 'api']]);
    const shape = thrown(() =>
      predictRestarts(pod, pod, { kubeletVersion: '1.30', probes: { web: { livenessProbe: 'failed' as 'failure' } } }),
    );
    expect(shape.path).toEqual(['options', 'probes', 'web', 'livenessProbe']);
    expect(shape.message).toContain('"failed"');
  });

  it('refuses a sandbox state of the wrong shape, naming the member', () => {
    const e = thrown(() =>
      predictRestarts(pod, pod, { kubeletVersion: '1.30', sandbox: { ready: 'yes' as unknown as boolean } }),
    );
    expect(e.path).toEqual(['options', 'sandbox', 'ready']);
    expect(e.expected).toBe('true or false');
  });

  it('says what it assumed for the sandbox and the probes, and nothing once they are given', () => {
    const bare = predictRestarts(pod, pod, { kubeletVersion: '1.30', podStatus: running });
    expect(bare.pod.assumptions.join(' ')).toContain('sandbox is ready');
    expect(bare.containers[0]!.assumptions.join(' ')).toContain('liveness probe has not failed');
    const told = predictRestarts(pod, pod, {
      kubeletVersion: '1.30',
      podStatus: { ...running, conditions: [{ type: 'PodReadyToStartContainers', status: 'True' }] },
      probes: { web: { livenessProbe: 'success' } },
    });
    expect(told.pod.assumptions.join(' ')).not.toContain('sandbox');
    expect(told.containers[0]!.assumptions.join(' ')).not.toContain('liveness');
    expect(told.containers[0]!.action).toBe('keep');
  });

  it('names the form applied to a release whose computePodActions was not read', () => {
    const p = predictRestarts(pod, pod, { kubeletVersion: '1.17', podStatus: running });
    expect(p.pod.assumptions).toContain("computePodActions of 1.17 was not read: 1.13.0's form is applied");
    const read = predictRestarts(pod, pod, { kubeletVersion: '1.20', podStatus: running });
    expect(read.pod.assumptions.join(' ')).not.toContain('not read');
  });

  it('takes an ephemeral container without a status entry, or waiting to be created, as not created: started', () => {
    const none = predictRestarts(pod, pod, { kubeletVersion: '1.30', podStatus: running });
    expect(none.containers.find((c) => c.name === 'debug')!.action).toBe('start');
    const creating = {
      ...running,
      ephemeralContainerStatuses: [{ name: 'debug', state: { waiting: { reason: 'ContainerCreating' } } }],
    };
    expect(
      predictRestarts(pod, pod, { kubeletVersion: '1.30', podStatus: creating }).containers.find(
        (c) => c.name === 'debug',
      )!.action,
    ).toBe('start');
    // A created container (waiting without a reason) is not started again: ephemeral containers never are.
    const created = { ...running, ephemeralContainerStatuses: [{ name: 'debug', state: { waiting: {} } }] };
    expect(
      predictRestarts(pod, pod, { kubeletVersion: '1.30', podStatus: created }).containers.find(
        (c) => c.name === 'debug',
      )!.action,
    ).toBe('keep');
  });

  it('takes containers without a state as running at the pod level too (killed with a pod that gets no new sandbox)', () => {
    const never = { spec: { ...pod.spec, restartPolicy: 'Never' } };
    const p = predictRestarts(never, never, { kubeletVersion: '1.30', sandbox: { exists: true, ready: false } });
    expect(p.pod.action).toBe('kill');
    expect(p.containers.map((c) => [c.name, c.action, c.kills])).toEqual([
      ['web', 'kill', true],
      ['debug', 'kill', true],
    ]);
    // The runtime has none of them: the kubelet makes a new sandbox even under Never (1.20+).
    const absent = { containerStatuses: [{ name: 'web', state: 'absent' }], ephemeralContainerStatuses: [] };
    const q = predictRestarts(never, never, {
      kubeletVersion: '1.30',
      podStatus: absent,
      sandbox: { exists: true, ready: false },
    });
    expect(q.pod.action).toBe('kill-and-recreate');
  });

  it("does not change the caller's objects", () => {
    const status = { ...running, conditions: [{ type: 'PodReadyToStartContainers', status: 'False' }] };
    const sandbox = { exists: true, ready: false };
    const probes = { web: { livenessProbe: 'failure' as const } };
    const copies = structuredClone({ pod, status, sandbox, probes });
    const p = predictRestarts(pod, pod, { kubeletVersion: '1.30', podStatus: status, sandbox, probes });
    expect(p.pod.action).toBe('kill-and-recreate');
    expect({ pod, status, sandbox, probes }).toEqual(copies);
  });
});
