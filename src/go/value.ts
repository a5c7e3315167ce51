/**
 * The Go value tree: how a decoded `v1.Container` (and everything it reaches) is held in
 * JavaScript. Decoders build it, encoders read it; both are driven by the same `GoType`.
 *
 * | Go kind                | JavaScript                                                            |
 * |------------------------|-----------------------------------------------------------------------|
 * | string (and named)     | `string`, well-formed UTF-16 (lone surrogates already became U+FFFD)  |
 * | bool                   | `boolean`                                                             |
 * | int32 (and named)      | `number`                                                              |
 * | int, int64, uint       | `bigint` (exact: Go semantics beat JS numbers)                        |
 * | pointer                | `null` for nil, else the pointee value itself                         |
 * | slice                  | `null` for nil, else an array                                         |
 * | map                    | `null` for nil, else a {@link GoMap}: entries sorted by Go string order|
 * | struct                 | an object with one property per Go field name (`goName`), all present |
 *
 * `resource.Quantity` is a struct like any other here (`i`, `d`, `s`, `Format` exactly as in Go's
 * memory), so go-spew's printer needs no special case; encoding/json special-cases it by name.
 */

export type GoValue = string | boolean | number | bigint | null | readonly GoValue[] | GoMap | GoStruct;

/** A Go map: `[key, value]` entries sorted by the keys' UTF-8 bytes (Go's string order), no duplicates. */
export type GoMap = ReadonlyArray<readonly [string, GoValue]> & { readonly goMap: true };

export interface GoStruct {
  readonly [goName: string]: GoValue;
}

/** `intstr.IntOrString` as Go holds it: `Type` 0 (Int) means `IntVal`, 1 (String) means `StrVal`. */
export type IntOrStringValue = {
  readonly Type: bigint;
  readonly IntVal: number;
  readonly StrVal: string;
};

/** Marks an entries array as a Go map (so a map and a slice can never be confused). */
export function makeGoMap(entries: Array<readonly [string, GoValue]>): GoMap {
  return Object.assign(entries, { goMap: true as const });
}

/** Compares two strings the way Go compares strings: by their UTF-8 bytes. */
export function compareGoStrings(a: string, b: string): number {
  // UTF-16 code unit order equals UTF-8 byte order except that surrogates (astral characters)
  // sort below U+E000..U+FFFF in UTF-16 but above them in UTF-8; compare code points instead.
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs === ys) return x - y;
    return xs ? 1 : -1; // a surrogate (code point ≥ U+10000) is above any BMP unit
  }
  return a.length - b.length;
}
