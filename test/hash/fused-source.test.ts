/**
 * The generated source of one release's fused hashers is checked in, so a generator change shows up
 * in review as a diff of the code it generates (update with `npx vitest run test/hash/fused-source.test.ts -u`).
 * The source is readable: functions named after walk and Go type, tape kinds and the FNV prime by
 * name, each folded step beside its fragment's text, a sourceURL.
 */
import { describe, expect, it } from 'vitest';
import { fusedSource, throwFusedBugs } from '../../src/hash/fused/release-hashers.js';
import { fusedHash } from '../../src/hash/fused/entry.js';
import { releaseInfo } from '../../src/releases/release-info.js';

describe('generated fused hashers', () => {
  const source = fusedSource(releaseInfo('1.16'), 'pre-go1.22')!;

  it("1.16's source is the checked-in snapshot", async () => {
    await expect(source).toMatchFileSnapshot('../fixtures/fused-source/v1.16-pre-go1.22.js.snap');
  });

  it('reads by name', () => {
    expect(source).toContain('//# sourceURL=kubelet-hash/fused/v1.16-pre-go1.22.js');
    expect(source).toMatch(/function \$json_v1_Container\b/);
    expect(source).toMatch(/function \$tape_json_v1_Container\b/);
    expect(source).not.toMatch(/function f\d+\(/);
    expect(source).not.toMatch(/KD\[\w+\] *[=!<]==? *\d(?! \/\* T_)/);
    const legacy = fusedSource(releaseInfo('1.8'))!;
    expect(legacy).toContain('16777619 /* FNV_PRIME */');
    expect(legacy).not.toMatch(/16777619(?! \/\* FNV_PRIME)/);
    expect(source).toContain('/* "\\"name\\":" */');
  });

  it("1.31+'s generated source is the whole-container check, which feeds nothing", () => {
    const source = fusedSource(releaseInfo('1.33'))!;
    expect(source).toContain('//# sourceURL=kubelet-hash/fused/v1.33-check.js');
    // The check walks the whole container (a member 1.31+ does not hash is read too), on objects and
    // on the tape, with type tests only: no bytes fed, no folded steps, no key sorting.
    expect(source).toContain('function $check_v1_Container(o)');
    expect(source).toContain('function $tape_check_v1_Container(o)');
    expect(source).toContain('"ports"');
    expect(source).not.toContain('FNV_PRIME');
    expect(source).not.toMatch(/T\[\d+ \+ \(h & 255\)\]/);
    expect(source).not.toMatch(/\b(mapKeys|sortedMembers|jstr|jbytes|jsonByte)\(/);
  });

  it('in tests a TypeError inside a hasher throws; outside it falls back', () => {
    // A getter that throws a TypeError stands in for a generator bug (the hasher reads `name`).
    const bad = Object.defineProperty({ image: 'x' }, 'name', {
      enumerable: true,
      get() {
        throw new TypeError('generator bug');
      },
    });
    expect(() => fusedHash(bad, releaseInfo('1.29'), undefined)).toThrow(TypeError);
    throwFusedBugs(false);
    try {
      expect(fusedHash(bad, releaseInfo('1.29'), undefined)).toBe(-1);
    } finally {
      throwFusedBugs(true);
    }
  });
});
