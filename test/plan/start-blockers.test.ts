/**
 * Start blockers: what keeps the target kubelet from starting, one test per class with the upstream
 * source it was read from (the kubelet's sources at the release tags, in the Go module cache of
 * .ci/provision/60-kubernetes-modules.sh).
 */
import { describe, expect, it } from 'vitest';
import { startBlockers } from '../../src/plan/start-blockers.js';

const subjects = (to: string, flags: string[], extra: Parameters<typeof startBlockers>[0] = { to }) =>
  startBlockers({ ...extra, to, flags }).map((b) => `${b.kind} ${b.subject} ${b.releases}`);

describe('startBlockers', () => {
  it('--pod-infra-container-image: deprecated at v1.34.0 ("will be removed in 1.35"), unknown at v1.35.0 — kubernetes#133779', () => {
    const flags = ['--config=/var/lib/kubelet/config.yaml', '--pod-infra-container-image=registry.k8s.io/pause:3.10'];
    expect(subjects('1.34', flags)).toEqual([]);
    expect(subjects('1.35', flags)).toEqual(['removed-flag --pod-infra-container-image ≥ 1.35']);
    expect(subjects('v1.37.2', ['--pod-infra-container-image', 'pause:3.10'])).toEqual([
      'removed-flag --pod-infra-container-image ≥ 1.35',
    ]);
    expect(startBlockers({ to: '1.35', flags })[0]!.source).toMatch(/kubernetes#133779/);
  });

  it('cAdvisor flags registered deprecated through v1.36.0 (globalflags_linux.go), gone at v1.37.2; housekeeping-interval stays; _ spellings count', () => {
    const flags = [
      '--boot_id_file=/proc/sys/kernel/random/boot_id',
      '--containerd-namespace=k8s.io',
      '--housekeeping-interval=10s',
    ];
    expect(subjects('1.36', flags)).toEqual([]);
    expect(subjects('1.37', flags)).toEqual([
      'removed-flag --boot-id-file ≥ 1.37',
      'removed-flag --containerd-namespace ≥ 1.37',
    ]);
    expect(startBlockers({ to: '1.37', flags })[0]!.source).toMatch(/globalflags_linux\.go.*v1\.36\.0.*v1\.37\.2/);
  });

  it('cgroup v1 from 1.35: failCgroupV1 defaults to true (v1beta1 defaults.go at v1.35.0, false at v1.34.0) and validation_linux.go refuses to start — KEP-5573', () => {
    expect(subjects('1.34', [], { to: '1.34', cgroup: 'v1' })).toEqual([]);
    expect(subjects('1.35', [], { to: '1.35', cgroup: 'v1' })).toEqual(['cgroup-v1 cgroup v1 ≥ 1.35']);
    expect(subjects('1.35', [], { to: '1.35', cgroup: 'v2' })).toEqual([]);
    // Turned off in the file, or by the flag (which wins over the file).
    expect(subjects('1.35', [], { to: '1.35', cgroup: 'v1', config: { failCgroupV1: false } })).toEqual([]);
    expect(
      subjects('1.35', ['--fail-cgroupv1=false'], { to: '1.35', cgroup: 'v1', config: { failCgroupV1: true } }),
    ).toEqual([]);
    expect(
      subjects('1.35', ['--fail-cgroupv1'], { to: '1.35', cgroup: 'v1', config: { failCgroupV1: false } }),
    ).toEqual(['cgroup-v1 cgroup v1 ≥ 1.35']);
    expect(startBlockers({ to: '1.35', cgroup: 'v1' })[0]!.source).toMatch(/KEP-5573/);
  });

  describe('CRI RuntimeConfig (cmd/kubelet/app/server.go getCgroupDriverFromCRI at v1.30.14, v1.34.4, v1.37.2; KubeletCgroupDriverFromCRI in kube_features.go at v1.34.4)', () => {
    const kinds = (input: Parameters<typeof startBlockers>[0]) =>
      startBlockers(input).map((b) => `${b.kind} ${b.verdict} ${b.subject}`);
    const systemd = { answer: 'served', cgroupDriver: 0 } as const;

    it('asked from 1.28 with the gate, by default from 1.31, always from 1.34 (GA, locked on)', () => {
      const notAsked = { answer: 'not-asked', reason: 'no runtime endpoint' } as const;
      expect(kinds({ to: '1.30', runtimeConfig: notAsked })).toEqual([]);
      expect(
        kinds({ to: '1.30', flags: ['--feature-gates=KubeletCgroupDriverFromCRI=true'], runtimeConfig: notAsked }),
      ).toEqual(['runtime-config unknown CRI RuntimeConfig']);
      expect(kinds({ to: '1.31', runtimeConfig: notAsked })).toEqual(['runtime-config unknown CRI RuntimeConfig']);
      expect(
        kinds({ to: '1.33', config: { featureGates: { KubeletCgroupDriverFromCRI: false } }, runtimeConfig: notAsked }),
      ).toEqual([]);
      // The flag wins over the file; at 1.34 neither turns it off.
      expect(
        kinds({
          to: '1.33',
          flags: ['--feature-gates', 'A=false,KubeletCgroupDriverFromCRI=true'],
          config: { featureGates: { KubeletCgroupDriverFromCRI: false } },
          runtimeConfig: notAsked,
        }),
      ).toEqual(['runtime-config unknown CRI RuntimeConfig']);
      expect(
        kinds({ to: '1.34', flags: ['--feature-gates=KubeletCgroupDriverFromCRI=false'], runtimeConfig: notAsked }),
      ).toHaveLength(1);
      expect(startBlockers({ to: '1.34', runtimeConfig: notAsked })[0]!.message).toMatch(/no runtime endpoint/);
    });

    it('UNIMPLEMENTED (containerd 1.x): the kubelet falls back to its configured driver, no finding; another error: unknown (three tries, then it exits)', () => {
      expect(
        kinds({ to: '1.37', runtimeConfig: { answer: 'unimplemented', details: 'unknown method RuntimeConfig' } }),
      ).toEqual([]);
      const failed = startBlockers({
        to: '1.37',
        runtimeConfig: { answer: 'failed', status: 'UNAVAILABLE', details: 'gone' },
      });
      expect(failed.map((b) => `${b.kind} ${b.verdict}`)).toEqual(['runtime-config unknown']);
      expect(failed[0]!.source).toMatch(/server\.go getCgroupDriverFromCRI/);
    });

    it('a driver number neither SYSTEMD nor CGROUPFS: the kubelet exits', () => {
      expect(kinds({ to: '1.34', runtimeConfig: { answer: 'served', cgroupDriver: 7 } })).toEqual([
        'runtime-config blocks CRI RuntimeConfig',
      ]);
      // No linux section: the configured driver stays.
      expect(kinds({ to: '1.34', runtimeConfig: { answer: 'served' } })).toEqual([]);
    });

    it('the runtime’s driver differs from the configured one (default cgroupfs, the file, the flag): blocks when the running kubelet did not ask, unknown when its release is not given', () => {
      expect(kinds({ from: '1.30', to: '1.31', runtimeConfig: systemd })).toEqual([
        'cgroup-driver blocks cgroup driver cgroupfs → systemd',
      ]);
      expect(kinds({ to: '1.31', runtimeConfig: systemd })).toEqual([
        'cgroup-driver unknown cgroup driver cgroupfs → systemd',
      ]);
      expect(kinds({ from: '1.31', to: '1.34', runtimeConfig: systemd })).toEqual([]);
      expect(kinds({ from: '1.30', to: '1.31', config: { cgroupDriver: 'systemd' }, runtimeConfig: systemd })).toEqual(
        [],
      );
      expect(
        kinds({
          from: '1.30',
          to: '1.31',
          flags: ['--cgroup-driver=systemd'],
          config: { cgroupDriver: 'cgroupfs' },
          runtimeConfig: systemd,
        }),
      ).toEqual([]);
      expect(startBlockers({ from: '1.30', to: '1.31', runtimeConfig: systemd })[0]!.source).toMatch(
        /LinuxRuntimeConfiguration/,
      );
    });
  });

  describe('checkpoint files the target cannot read', () => {
    const kinds = (to: string, checkpoints: Record<string, string>, flags: string[] = []) =>
      startBlockers({ to, flags, checkpoints }).map((b) => `${b.kind} ${b.subject} ${b.releases}`);
    const v1 = JSON.stringify({ policyName: 'static', defaultCpuSet: '0-3', entries: { abc123: '2' }, checksum: 1 });
    const v2 = JSON.stringify({
      policyName: 'static',
      defaultCpuSet: '0-3',
      entries: { 'pod-uid': { app: '2' } },
      checksum: 1,
    });

    it('cpu_manager_state in the v1 form: read by 1.36.3 (migrateV1CheckpointToV2Checkpoint), not by 1.37.2 (state_checkpoint.go)', () => {
      expect(kinds('1.36', { cpu_manager_state: v1 })).toEqual([]);
      expect(kinds('1.37', { cpu_manager_state: v1 })).toEqual(['checkpoint cpu_manager_state ≥ 1.37']);
      expect(kinds('1.37', { cpu_manager_state: v2 })).toEqual([]);
      expect(startBlockers({ to: '1.37', checkpoints: { cpu_manager_state: v1 } })[0]!.source).toMatch(
        /v1\.36\.3.*v1\.37\.2/,
      );
    });

    it('dra_manager_state in the ≤ 1.30 form ({version, entries}, cm/dra/state/checkpoint.go at v1.30.14): fails from 1.31 where the DRA manager runs (gate; default at 1.34; locked at 1.35)', () => {
      const old = JSON.stringify({ version: 'v1', entries: [], checksum: 1234 });
      const current = JSON.stringify({ Data: '{"kind":"DRACheckpoint"}', Checksum: 1 });
      expect(kinds('1.30', { dra_manager_state: old }, ['--feature-gates=DynamicResourceAllocation=true'])).toEqual([]);
      expect(kinds('1.33', { dra_manager_state: old })).toEqual([]);
      expect(
        kinds('1.33', { dra_manager_state: old }, ['--feature-gates=DynamicResourceAllocation=true']),
      ).toHaveLength(1);
      expect(kinds('1.34', { dra_manager_state: old })).toEqual([
        'checkpoint dra_manager_state ≥ 1.31 with DynamicResourceAllocation (default from 1.34)',
      ]);
      expect(kinds('1.34', { dra_manager_state: old }, ['--feature-gates=DynamicResourceAllocation=false'])).toEqual(
        [],
      );
      expect(
        kinds('1.35', { dra_manager_state: old }, ['--feature-gates=DynamicResourceAllocation=false']),
      ).toHaveLength(1);
      expect(kinds('1.37', { dra_manager_state: current })).toEqual([]);
    });

    it('a CPU or memory manager file that is no JSON object: refused in every release (NewCheckpointState)', () => {
      expect(kinds('1.31', { memory_manager_state: '{"policyName":' })).toEqual([
        'checkpoint memory_manager_state every release',
      ]);
      expect(kinds('1.31', { cpu_manager_state: '[]' })).toEqual(['checkpoint cpu_manager_state every release']);
    });
  });

  it('refuses a target that is no kubelet version', () => {
    expect(() => startBlockers({ to: 'latest' })).toThrow(/to.*kubelet version/);
  });
});
