/**
 * A JSON number kept as its exact source text. Go decodes numbers from their text (an int64 field
 * takes `9007199254740993` exactly; a Quantity keeps `1E3` verbatim), so the library's own parser
 * never turns numbers into lossy doubles.
 */
export class JsonNumber {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
  toJSON(): number {
    return Number(this.text);
  }
}
