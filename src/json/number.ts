/**
 * A JSON number kept as its exact source text. Go decodes numbers from their text (an int64 field
 * takes `9007199254740993` exactly; a Quantity keeps `1E3` verbatim), so the library's own parser
 * never turns numbers into lossy doubles.
 *
 * @example
 * ```ts
 * import { parseJson, JsonNumber } from 'kubelet-hash';
 *
 * const doc = parseJson('{"runAsUser": 9007199254740993}') as { runAsUser: JsonNumber };
 * doc.runAsUser instanceof JsonNumber; // → true
 * doc.runAsUser.text; // → '9007199254740993'
 * // JSON.stringify goes through a double, like any JS number.
 * JSON.stringify(doc.runAsUser); // → '9007199254740992'
 * ```
 *
 * @group Hashing
 */
export class JsonNumber {
  constructor(
    /** The number exactly as written in the JSON source (`1E3`, `9007199254740993`, `-0.5`). */
    readonly text: string,
  ) {}
  /** The source text, unchanged. */
  toString(): string {
    return this.text;
  }
  /** For `JSON.stringify`: the value as a JS number, so digits beyond double precision are lost. */
  toJSON(): number {
    return Number(this.text);
  }
}

/** RFC 8259 number syntax (unanchored source): what Go's scanner accepts as a number. */
export const JSON_NUMBER_SYNTAX = '-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?';
