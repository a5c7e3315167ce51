/**
 * Reference printer for the differential tests: go-spew 1.1.1 `%#v` interpreted directly over a
 * GoType and a value tree, building a string. It keeps spew's own single mutable
 * "skip the next type" flag instead of the compiled encoder's per-mode specialisation, so the
 * two are independent readings of the same rules.
 */
import type { GoType } from '../../src/models/gotype.js';
import type { GoMap, GoStruct, GoValue } from '../../src/go/value.js';

export function spewReference(type: GoType, value: GoValue): string {
  const state = { skipType: false, out: '' };
  format(state, type, value);
  return state.out;
}

interface State {
  skipType: boolean;
  out: string;
}

function format(st: State, type: GoType, v: GoValue): void {
  if (type.kind === 'ptr') {
    formatPointer(st, type, v);
    return;
  }
  if (!st.skipType) st.out += `(${type.name})`;
  st.skipType = false;
  switch (type.kind) {
    case 'string':
      st.out += v as string;
      return;
    case 'bool':
      st.out += v ? 'true' : 'false';
      return;
    case 'int':
    case 'int32':
    case 'int64':
    case 'uint':
      st.out += (v as number | bigint).toString();
      return;
    case 'slice': {
      if (v === null) {
        st.out += '<nil>';
        return;
      }
      st.out += '[';
      (v as readonly GoValue[]).forEach((el, i) => {
        if (i > 0) st.out += ' ';
        st.skipType = true;
        format(st, type.elem, el);
      });
      st.out += ']';
      return;
    }
    case 'map': {
      if (v === null) {
        st.out += '<nil>';
        return;
      }
      st.out += 'map[';
      (v as GoMap).forEach(([k, val], i) => {
        if (i > 0) st.out += ' ';
        st.skipType = true;
        format(st, type.key, k);
        st.out += ':';
        st.skipType = true;
        format(st, type.elem, val);
      });
      st.out += ']';
      return;
    }
    case 'struct': {
      st.out += '{';
      type.fields.forEach((f, i) => {
        if (i > 0) st.out += ' ';
        st.out += `${f.goName}:`;
        format(st, f.type, (v as GoStruct)[f.goName]!);
      });
      st.out += '}';
      return;
    }
  }
}

function formatPointer(st: State, type: GoType & { kind: 'ptr' }, v: GoValue): void {
  // A nil pointer printed without its type is just <nil>, and the flag is left as it was.
  if (v === null && st.skipType) {
    st.out += '<nil>';
    return;
  }
  let stars = 1;
  let target = type.elem;
  while (target.kind === 'ptr') {
    stars++;
    target = target.elem;
  }
  st.out += st.skipType ? `<${'*'.repeat(stars)}>` : `(${type.name})`;
  if (v === null) {
    st.out += '<nil>';
    return;
  }
  st.skipType = true;
  format(st, target, v);
}
