/**
 * One place per release: each release file under src/models/releases/ holds its type delta and its
 * kubelet facts, one ordered list registers them, and everything that names the supported
 * releases (models, registry, fixtures, README, package.json) follows from that list.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MODEL_VERSIONS } from '../../src/models/catalog.js';
import { BASE_RELEASE, RELEASE_DELTAS } from '../../src/models/releases/index.js';
import { releaseInfo, supportedReleases } from '../../src/releases/release-info.js';
import { oracleCases, oracleExpected } from '../support/oracle.js';

const RELEASE_FILES = new URL('../../src/models/releases/', import.meta.url);
const MODEL_FILES = new URL('../../fixtures/kube-models/', import.meta.url);
const text = (path: string): string => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const minorOf = (release: string): number => Number(release.split('.')[1]);

/** Maximal runs of consecutive releases for which `key` gives the same answer: `['1.8', '1.15', 'legacy']`. */
function runs<T>(key: (release: string) => T): [string, string, T][] {
  const out: [string, string, T][] = [];
  for (const r of supportedReleases()) {
    const last = out.at(-1);
    if (last && last[2] === key(r)) last[1] = r;
    else out.push([r, r, key(r)]);
  }
  return out;
}

describe('one place per release', () => {
  it('every model is a supported release and every supported release has a model', () => {
    expect(supportedReleases()).toEqual(MODEL_VERSIONS);
  });

  it('every release file is registered once, in order, under the version its name says', async () => {
    const files = readdirSync(RELEASE_FILES).filter((f) => /^v1_\d+\.ts$/.test(f));
    const registered = [BASE_RELEASE, ...RELEASE_DELTAS];
    expect(files).toHaveLength(registered.length);
    for (const file of files) {
      const name = file.slice(0, -3);
      const mod = (await import(new URL(file, RELEASE_FILES).href)) as Record<string, { version: string }>;
      const release = mod[name];
      expect(release?.version).toBe(name.slice(1).replace('_', '.'));
      expect(registered.filter((r) => r === release)).toHaveLength(1);
    }
    const minors = registered.map((r) => minorOf(r.version));
    expect(minors).toEqual(minors.map((_, i) => minors[0]! + i));
  });

  it('fixtures/kube-models has one file per release and the oracle one column per release', () => {
    const models = readdirSync(MODEL_FILES).filter((f) => f.endsWith('.json'));
    expect(models.map((f) => f.slice(1, -5)).sort()).toEqual([...supportedReleases()].sort());
    const oracleReleases = new Set(oracleExpected().map((row) => row.version));
    expect([...oracleReleases].sort()).toEqual([...supportedReleases()].sort());
    expect(oracleExpected()).toHaveLength(oracleCases().length * supportedReleases().length);
  });

  it('README and package.json state the release range and eras the registry holds', () => {
    const all = supportedReleases();
    const [first, last] = [all[0]!, all.at(-1)!];
    const readme = text('README.md');
    expect(readme).toContain(`every kubelet release ${first}–${last}`);
    expect(readme).toContain(`every kubelet release from ${first} to ${last}`);
    expect(readme).toContain(`${oracleCases().length} × ${all.length} reference hashes`);
    for (const [from, to] of runs((r) => releaseInfo(r).algorithm)) expect(readme).toContain(`| ${from} – ${to} |`);
    const withoutResources = runs((r) => releaseInfo(r).hashWithoutResources).filter(([, , has]) => has);
    expect(withoutResources).toHaveLength(1);
    expect(readme).toContain(
      `| ${withoutResources[0]![0]} – ${withoutResources[0]![1]} | also \`hashWithoutResources\``,
    );
    const pkg = JSON.parse(text('package.json')) as { description: string };
    expect(pkg.description).toContain(`every release ${first} to ${last}`);
  });
});
