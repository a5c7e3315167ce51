/**
 * A tiny JSON reader for tests that keeps what JSON.parse throws away: the source text of numbers
 * (`1E3`, `1000.0`) and of strings (escapes intact), and object members in source order.
 */
export type SourceNode =
  | { kind: 'null' }
  | { kind: 'bool'; value: boolean }
  | { kind: 'number'; text: string }
  | { kind: 'string'; text: string; raw: string }
  | { kind: 'array'; items: SourceNode[] }
  | { kind: 'object'; members: Array<[string, SourceNode]> };

export function parseWithSource(src: string): SourceNode {
  let pos = 0;
  const ws = (): void => {
    while (pos < src.length && ' \t\r\n'.includes(src[pos]!)) pos++;
  };
  const fail = (what: string): never => {
    throw new Error(`json-source: ${what} at ${pos}`);
  };
  const value = (): SourceNode => {
    ws();
    const c = src[pos];
    if (c === '{') {
      pos++;
      const members: Array<[string, SourceNode]> = [];
      ws();
      if (src[pos] === '}') {
        pos++;
        return { kind: 'object', members };
      }
      for (;;) {
        ws();
        const key = value();
        if (key.kind !== 'string') fail('object key');
        ws();
        if (src[pos++] !== ':') fail('colon');
        members.push([(key as { text: string }).text, value()]);
        ws();
        const sep = src[pos++];
        if (sep === '}') return { kind: 'object', members };
        if (sep !== ',') fail('comma');
      }
    }
    if (c === '[') {
      pos++;
      const items: SourceNode[] = [];
      ws();
      if (src[pos] === ']') {
        pos++;
        return { kind: 'array', items };
      }
      for (;;) {
        items.push(value());
        ws();
        const sep = src[pos++];
        if (sep === ']') return { kind: 'array', items };
        if (sep !== ',') fail('comma');
      }
    }
    if (c === '"') {
      const start = pos;
      pos++;
      while (src[pos] !== '"') {
        if (pos >= src.length) fail('unterminated string');
        pos += src[pos] === '\\' ? 2 : 1;
      }
      pos++;
      const literal = src.slice(start, pos);
      return { kind: 'string', text: JSON.parse(literal) as string, raw: literal.slice(1, -1) };
    }
    const m = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/.exec(src.slice(pos, pos + 400));
    if (m !== null && m[0].length > 0) {
      pos += m[0].length;
      return { kind: 'number', text: m[0] };
    }
    for (const [word, node] of [
      ['null', { kind: 'null' }],
      ['true', { kind: 'bool', value: true }],
      ['false', { kind: 'bool', value: false }],
    ] as const) {
      if (src.startsWith(word, pos)) {
        pos += word.length;
        return node;
      }
    }
    return fail('value');
  };
  const root = value();
  ws();
  if (pos !== src.length) fail('trailing text');
  return root;
}

/** The member `key` of an object node (last one wins, like encoding/json), else undefined. */
export function member(node: SourceNode | undefined, key: string): SourceNode | undefined {
  if (node?.kind !== 'object') return undefined;
  let found: SourceNode | undefined;
  for (const [k, v] of node.members) if (k === key) found = v;
  return found;
}
