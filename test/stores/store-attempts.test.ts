/**
 * Every store keeps the CRI attempt its records hold (planning needs it to tell a container's
 * newest attempt from the exited ones the kubelet has not collected yet), and invents none: a
 * record that keeps no attempt has none, one whose attempt is not a uint32 is refused.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ContainerdStore, CrioStore, DockerStore } from '../../src/stores/index.js';
import { encodeAny } from '../../src/stores/containerd/any.js';
import { CONTAINER_METADATA_TYPE_URL } from '../../src/stores/containerd/metadata.js';
import { readRuntimeRecords } from '../../src/runtime-records/index.js';
import { fixtureAttempt, fixtureContainers, fixturePod, type FixtureContainer } from '../support/cri-fixtures.js';
import { writeCrioNode } from '../support/crio-fixtures.js';
import { writeContainerdNode } from '../support/node-fixture.js';

const dir = mkdtempSync(join(tmpdir(), 'kh-store-attempts-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const [first] = fixtureContainers([fixturePod(4)], '1.30');
const restarted = fixtureAttempt(first!, 3, { seed: 7001 });
const attemptsOf = (list: readonly { containerId: string; attempt?: number }[]) =>
  Object.fromEntries(list.map((c) => [c.containerId, c.attempt]));

/** `f` with its CRI metadata replaced by `metadata` (undefined: none at all). */
function withMetadata(f: FixtureContainer, metadata: unknown, seed: number): FixtureContainer {
  const other = fixtureAttempt(f, 0, { seed });
  const doc = JSON.parse(other.json) as { Metadata: { Config: Record<string, unknown> } };
  if (metadata === undefined) delete doc.Metadata.Config.metadata;
  else doc.Metadata.Config.metadata = metadata;
  const json = JSON.stringify(doc);
  return { ...other, json, extension: encodeAny(CONTAINER_METADATA_TYPE_URL, Buffer.from(json)) };
}

describe('containerd: Metadata.Config.metadata.attempt', () => {
  it('is read as stored; Go leaves attempt 0 out; a record without CRI metadata has no attempt', async () => {
    const bare = withMetadata(first!, undefined, 7002);
    const root = writeContainerdNode(join(dir, 'ctd'), [first!, restarted, bare]);
    expect(attemptsOf(await new ContainerdStore({ root }).list())).toEqual({
      [first!.id]: 0,
      [restarted.id]: 3,
      [bare.id]: undefined,
    });
  });

  it.each([['"2"'], [-1], [1.5], [4294967296]])('refuses attempt %s (INVALID_RECORD at the path)', async (attempt) => {
    const bad = withMetadata(
      first!,
      { name: 'x', attempt: typeof attempt === 'string' ? JSON.parse(attempt) : attempt },
      7003,
    );
    const root = writeContainerdNode(join(dir, `ctd-bad-${String(attempt)}`), [bad]);
    await expect(new ContainerdStore({ root }).list()).rejects.toMatchObject({
      code: 'INVALID_RECORD',
      path: ['Metadata', 'Config', 'metadata', 'attempt'],
    });
  });
});

describe('CRI-O: the io.kubernetes.cri-o.Metadata annotation', () => {
  it('is read from the graphroot copy', async () => {
    const graphRoot = join(dir, 'crio-graph');
    writeCrioNode(graphRoot, join(dir, 'crio-run'), [first!, restarted]);
    expect(attemptsOf(await new CrioStore({ graphRoot }).list())).toEqual({ [first!.id]: 0, [restarted.id]: 3 });
  });

  // Labels that are JSON but no object were a TypeError; metadata that is not JSON cannot be read back.
  it.each([
    ['io.kubernetes.cri-o.Labels', 'null'],
    ['io.kubernetes.cri-o.Metadata', '{'],
  ])('refuses %s = %s (INVALID_RECORD at the annotation, never a TypeError)', async (key, value) => {
    const graphRoot = join(dir, `crio-bad-${key}`);
    const [file] = writeCrioNode(graphRoot, join(dir, `crio-bad-${key}-run`), [restarted]);
    const member = new RegExp(`${JSON.stringify(key).replace(/\./g, '\\.')}: "[^\\n]*",`);
    writeFileSync(
      file!,
      readFileSync(file!, 'utf8').replace(member, `${JSON.stringify(key)}: ${JSON.stringify(value)},`),
    );
    await expect(new CrioStore({ graphRoot }).list()).rejects.toMatchObject({
      code: 'INVALID_RECORD',
      path: ['annotations', key],
    });
  });
});

describe('docker: the attempt in the container name', () => {
  const text = readFileSync(
    join(import.meta.dirname, '..', '..', 'fixtures', 'runtime', 'docker-config.v2.json'),
    'utf8',
  );
  const id = (JSON.parse(text) as { ID: string }).ID;
  const name = (JSON.parse(text) as { Name: string }).Name;

  it.each([
    [name, 0],
    [name.replace(/_0$/, '_12'), 12],
    [`${name.replace(/_0$/, '_4')}_a1b2c3d4`, 4],
    ['/web', undefined],
    [name.replace(/_0$/, '_x'), undefined],
  ])('%s → attempt %s', async (n, attempt) => {
    const root = join(dir, `docker-${String(attempt)}-${n.length}`);
    mkdirSync(join(root, 'containers', id), { recursive: true });
    const record = text.replace(`"Name":"${name}"`, `"Name":${JSON.stringify(n)}`);
    writeFileSync(join(root, 'containers', id, 'config.v2.json'), record);
    const [c] = await new DockerStore({ root }).list();
    expect(c?.attempt).toBe(attempt);
    expect(readRuntimeRecords(record)[0]?.attempt).toBe(attempt);
  });
});
