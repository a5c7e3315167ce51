/**
 * CRI-O's persisted container config (`userdata/config.json`) for a fixture container, in CRI-O's
 * on-disk format: the OCI spec with the CRI annotations at top level and JSON-encoded in
 * `io.kubernetes.cri-o.Annotations`, labels in `io.kubernetes.cri-o.Labels`, written by
 * runtime-tools' generator with tab indentation and no trailing newline.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FixtureContainer } from './cri-fixtures.js';

export function crioSpec(f: FixtureContainer, type: 'container' | 'sandbox'): string {
  const cri = f.annotations;
  const annotations: Record<string, string> = {
    'io.container.manager': 'cri-o',
    ...cri,
    'io.kubernetes.cri-o.Annotations': JSON.stringify(cri),
    'io.kubernetes.cri-o.ContainerID': f.id,
    'io.kubernetes.cri-o.ContainerType': type,
    'io.kubernetes.cri-o.Labels': JSON.stringify(f.labels),
    // CRI-O keeps the CRI ContainerMetadata as Go JSON (omitempty: attempt 0 is left out).
    'io.kubernetes.cri-o.Metadata': JSON.stringify({
      name: f.labels['io.kubernetes.container.name'],
      ...(f.attempt !== 0 ? { attempt: f.attempt } : {}),
    }),
    'io.kubernetes.cri-o.Name': `k8s_${f.labels['io.kubernetes.container.name']}_${f.pod.metadata.name}_${f.pod.metadata.namespace}_${f.pod.metadata.uid}_${f.attempt}`,
    'io.kubernetes.pod.name': f.pod.metadata.name,
  };
  const spec = {
    ociVersion: '1.0.2-dev',
    process: { args: ['/app'], cwd: '/' },
    root: { path: '/var/lib/containers/storage/overlay/x/merged' },
    annotations,
  };
  // runtime-tools' generator saves specs with json.MarshalIndent(spec, "", "\t") and no newline.
  return JSON.stringify(spec, null, '\t');
}

/** Writes `fixtures` as CRI-O would persist them under a graphroot and a runroot. */
export function writeCrioNode(graphRoot: string, runRoot: string, fixtures: readonly FixtureContainer[]): string[] {
  const files: string[] = [];
  for (const f of fixtures) {
    for (const root of [graphRoot, runRoot]) {
      const d = join(root, 'overlay-containers', f.id, 'userdata');
      mkdirSync(d, { recursive: true });
      writeFileSync(join(d, 'config.json'), crioSpec(f, 'container'));
      files.push(join(d, 'config.json'));
    }
  }
  return files;
}
