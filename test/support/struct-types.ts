/** Struct types of a hand-built model, for tests of the encoders on Go types the container models never reach. */
import { TypeResolver, type StructType } from '../../src/models/gotype.js';
import type { ReleaseModel } from '../../src/models/model.js';

/** `structType(name)`: the resolved struct `name` of `model` (throws for any other kind). */
export function structTypesOf(model: Pick<ReleaseModel, 'types'>): (name: string) => StructType {
  const resolver = new TypeResolver(model);
  return (name) => {
    const t = resolver.resolve(name);
    if (t.kind !== 'struct') throw new Error(`${name} is not a struct`);
    return t;
  };
}
