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

  it('refuses a target that is no kubelet version', () => {
    expect(() => startBlockers({ to: 'latest' })).toThrow(/to.*kubelet version/);
  });
});
