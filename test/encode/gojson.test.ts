/** encoding/json behaviours the JSON-era hash depends on, checked through preimage(). */
import { describe, expect, it } from 'vitest';
import { hashingWithoutNameCheck } from '../../src/hash-api/hash.js';

// encoding/json behaviours on container fragments; the name check is tested in api-misuse.test.ts.
const { preimage } = hashingWithoutNameCheck;

const json = (c: object | string, v = '1.29'): string => preimage(c, { kubeletVersion: v }).text;

describe('Go encoding/json emulation', () => {
  it('writes fields in struct order, not input order, and resources:{} always', () => {
    expect(json({ image: 'i', args: ['a'], name: 'n', command: ['c'] })).toBe(
      '{"name":"n","image":"i","command":["c"],"args":["a"],"resources":{}}',
    );
  });

  it('omits empty omitempty fields but keeps name (no omitempty) and structs', () => {
    expect(json({})).toBe('{"name":"","resources":{}}');
    expect(json({ name: 'n', image: '', stdin: false, workingDir: '', ports: [] })).toBe('{"name":"n","resources":{}}');
  });

  it('escapes like Go with HTML escaping: < > & U+2028 U+2029 and controls as \\u00XX (lowercase)', () => {
    expect(json({ name: '<a&b>\u2028\u2029\u001f\u007f"\\\n\r\t' })).toBe(
      '{"name":"\\u003ca\\u0026b\\u003e\\u2028\\u2029\\u001f\u007f\\"\\\\\\n\\r\\t","resources":{}}',
    );
  });

  it('writes BS/FF as \\u0008/\\u000c before Go 1.22 (≤1.29) and \\b/\\f from 1.30', () => {
    expect(json({ name: '\b\f' }, '1.29')).toBe('{"name":"\\u0008\\u000c","resources":{}}');
    expect(json({ name: '\b\f' }, '1.30')).toBe('{"name":"\\b\\f","resources":{}}');
    expect(json({ name: '\b\f' }, '1.31')).toBe('{"image":"","name":"\\b\\f"}');
    expect(preimage({ name: '\b' }, { kubeletVersion: '1.29.15', jsonEscapes: 'go1.22' }).text).toBe(
      '{"name":"\\b","resources":{}}',
    );
  });

  it('replaces unpaired surrogates with U+FFFD and keeps astral characters as UTF-8', () => {
    const p = preimage({ name: 'a\ud800b😀' }, { kubeletVersion: '1.20' });
    expect(p.text).toBe('{"name":"a\ufffdb😀","resources":{}}');
    expect([...p.bytes.slice(10, 16)]).toEqual([0xef, 0xbf, 0xbd, 0x62, 0xf0, 0x9f]);
  });

  it('sorts map keys by UTF-8 bytes and canonicalises quantities', () => {
    const c = { name: 'q', resources: { limits: { '😀': '1', é: '0.5', b: '1024Mi', A: '1.5Gi', '~': 2 } } };
    expect(json(c)).toBe('{"name":"q","resources":{"limits":{"A":"1536Mi","b":"1Gi","~":"2","é":"500m","😀":"1"}}}');
  });

  it('prints nil pointers without omitempty as null (grpc service) and keeps divisor "0"', () => {
    const c = {
      name: 'p',
      livenessProbe: { grpc: { port: 9000 } },
      env: [{ name: 'E', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } }],
    };
    expect(json(c, '1.23')).toBe(
      '{"name":"p","env":[{"name":"E","valueFrom":{"resourceFieldRef":{"resource":"limits.cpu","divisor":"0"}}}],"resources":{},"livenessProbe":{"grpc":{"port":9000,"service":null}}}',
    );
    // 1.22 has no grpc probe: the field is dropped, like the kubelet's decoder would.
    expect(json(c, '1.22')).toContain('"livenessProbe":{}');
  });

  it('encodes IntOrString as a number or a string (a numeric string stays a string)', () => {
    const probe = (port: unknown): string => json({ name: 'p', readinessProbe: { tcpSocket: { port } } });
    expect(probe(8080)).toContain('"tcpSocket":{"port":8080}');
    expect(probe('8080')).toContain('"tcpSocket":{"port":"8080"}');
    expect(probe('http')).toContain('"tcpSocket":{"port":"http"}');
  });

  it('keeps pointers to zero structs and zero values ({} survives, false pointer survives)', () => {
    expect(json({ name: 's', securityContext: {} })).toBe('{"name":"s","resources":{},"securityContext":{}}');
    expect(json({ name: 's', securityContext: { privileged: false, runAsUser: 0 } })).toBe(
      '{"name":"s","resources":{},"securityContext":{"privileged":false,"runAsUser":0}}',
    );
  });

  it('hashes only image and name from 1.31, keys sorted', () => {
    expect(json({ name: 'n', image: 'i', command: ['x'] }, '1.31')).toBe('{"image":"i","name":"n"}');
  });

  it('feeds FNV the go-spew []uint8 form of the JSON bytes', () => {
    const p = preimage({ name: 'a' }, { kubeletVersion: '1.16' });
    expect(new TextDecoder().decode(p.hashedBytes)).toBe(`([]uint8)[${[...p.bytes].join(' ')}]`);
  });
});
