/**
 * Options read field by field (src/option-fields.ts) as a caller meets them through hashContainer,
 * containerChanged and predictRestarts: a misspelt name is refused with the closest known one, a
 * wrong value is echoed (shortened), Dates and class instances are named, and the caller's object
 * is left as it was.
 */
import { describe, expect, it } from 'vitest';
import { containerChanged, hashContainer, predictRestarts, OptionError } from '../../src/index.js';
import { describeOptionValue } from '../../src/option-fields.js';

const web = { name: 'web', image: 'nginx:1.27' };
const pod = { spec: { containers: [web] } };

function refusal(f: () => unknown): { code: string; path: readonly (string | number)[]; message: string } {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(OptionError);
    const { code, path, message } = e as OptionError;
    return { code, path, message };
  }
  throw new Error('expected a refusal');
}

describe('options read field by field', () => {
  it('a misspelt option is refused with the closest name, by every call', () => {
    const opts = { kubeletVerison: '1.31' } as unknown as { kubeletVersion: string };
    for (const f of [
      () => hashContainer(web, opts),
      () => containerChanged(web, { hash: '1' }, opts),
      () => predictRestarts(pod, pod, opts),
    ]) {
      const r = refusal(f);
      expect(r.code).toBe('INVALID_OPTION');
      expect(r.path).toEqual(['options', 'kubeletVerison']);
      expect(r.message).toContain('"kubeletVerison" is none of them; did you mean kubeletVersion?');
    }
    // With the right name beside it (the hot path of hashContainer), the wrong one is still refused.
    expect(
      refusal(() => hashContainer(web, { kubeletVersion: '1.31', jsonEscape: 'go1.22' } as never)).message,
    ).toContain('did you mean jsonEscapes?');
    expect(
      refusal(() => predictRestarts(pod, pod, { kubeletVersion: '1.31', podstatus: {} } as never)).message,
    ).toContain('did you mean podStatus?');
  });

  it('a field set to undefined is absent, as JSON.stringify leaves it out', () => {
    expect(hashContainer(web, { kubeletVersion: '1.31', later: undefined } as never)).toBe(
      hashContainer(web, { kubeletVersion: '1.31' }),
    );
  });

  it('a wrong value is echoed, shortened', () => {
    expect(refusal(() => hashContainer(web, { kubeletVersion: 131 } as never)).message).toBe(
      'INVALID_OPTION at .options.kubeletVersion: expected a string (found number 131)',
    );
    expect(refusal(() => hashContainer(web, { kubeletVersion: '1.31', jsonEscapes: 'go1.21' } as never)).message).toBe(
      'INVALID_OPTION at .options.jsonEscapes: expected one of "go1.22", "pre-go1.22" (found "go1.21")',
    );
    expect(
      refusal(() => predictRestarts(pod, pod, { kubeletVersion: '1.31', staticPod: 'yes' } as never)).message,
    ).toBe('INVALID_OPTION at .options.staticPod: expected true or false (found "yes")');
    expect(refusal(() => hashContainer(web, {} as never)).message).toBe(
      'INVALID_OPTION at .options.kubeletVersion: expected a string (found nothing)',
    );
    expect(refusal(() => hashContainer(web, null as never)).message).toContain('(found null)');
  });

  it('a container state in the wrong form says what it got: a Date, a class instance, a list', () => {
    const when = new Date('2024-05-01T10:00:00Z');
    const r = refusal(() => containerChanged(web, { hash: '1' }, { kubeletVersion: '1.31', state: { state: when } }));
    expect(r.path).toEqual(['options', 'state', 'state']);
    expect(r.message).toContain('(found a Date (2024-05-01T10:00:00.000Z))');
    const e = refusal(() => containerChanged(web, { hash: '1' }, { kubeletVersion: '1.31', state: { exitCode: 1.5 } }));
    expect(e.message).toBe('INVALID_OPTION at .options.state.exitCode: expected a whole number (found number 1.5)');
  });

  it('describes values without printing objects', () => {
    class V1Thing {
      kind = 'Thing';
    }
    expect(describeOptionValue('x'.repeat(50))).toBe(`"${'x'.repeat(40)}…" (50 characters)`);
    expect(describeOptionValue(new V1Thing())).toBe('a V1Thing object');
    expect(describeOptionValue([1, 2])).toBe('a list of 2 values');
    expect(describeOptionValue({ a: 1, b: 2 })).toBe('an object with keys ["a","b"]');
    expect(describeOptionValue(Object.create(null))).toBe('an empty object');
    expect(describeOptionValue(new Date(Number.NaN))).toBe('an invalid Date');
    expect(describeOptionValue(2n ** 64n)).toBe('bigint 18446744073709551616');
  });

  it("never changes the caller's options", () => {
    const options = Object.freeze({ kubeletVersion: '1.31', podStatus: Object.freeze({ containerStatuses: [] }) });
    expect(() => predictRestarts(pod, pod, options)).not.toThrow();
    expect(options).toEqual({ kubeletVersion: '1.31', podStatus: { containerStatuses: [] } });
  });
});
