/** Go zero values over a resolved type, for building test value trees by hand. */
import type { GoType } from '../../src/models/gotype.js';
import type { GoValue } from '../../src/go/value.js';

export function zeroValue(type: GoType): GoValue {
  switch (type.kind) {
    case 'string':
      return '';
    case 'bool':
      return false;
    case 'int32':
      return 0;
    case 'int':
    case 'int64':
    case 'uint':
      return 0n;
    case 'ptr':
    case 'slice':
    case 'map':
      return null;
    case 'struct': {
      const obj: Record<string, GoValue> = {};
      for (const f of type.fields) obj[f.goName] = zeroValue(f.type);
      return obj;
    }
  }
}
