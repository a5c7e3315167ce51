/**
 * What a container input comes to on each hashing path, as a comparable value: a hash, or the code of
 * the typed error. Shared by the tests that hold the fused path to the value tree.
 */
import { KubeletHashError } from '../../src/errors.js';
import { hashValue } from '../../src/hash/compute.js';
import { containerJson, decodeFor, type ContainerInput } from '../../src/hash/hashes-for.js';
import { hashContainer, hashContainerWithoutResources, type JsonEscapeMode } from '../../src/index.js';
import { checkContainerName, checkContainerShape } from '../../src/pod/container-shape.js';
import { releaseInfo } from '../../src/releases/release-info.js';

export type Outcome = { hash: number } | { code: string };

/** A typed error as its code; anything else is a bug in the test or the library, and propagates. */
function codeOf(e: unknown): { code: string } {
  if (e instanceof KubeletHashError) return { code: e.code };
  throw e;
}

function outcome(f: () => number): Outcome {
  try {
    return { hash: f() };
  } catch (e) {
    return codeOf(e);
  }
}

/** The value-tree path: decode, then encode and hash (the one the fused path must match). */
export function treeOutcome(input: unknown, version: string, escapes?: JsonEscapeMode, wr = false): Outcome {
  return outcome(() => {
    const { pipeline, value } = decodeFor(containerJson(input as ContainerInput), releaseInfo(version), escapes);
    return hashValue(pipeline, wr ? pipeline.withoutResources(value) : value);
  });
}

/** The public hashing function, its hex result read back as a number. */
export function publicOutcome(input: unknown, version: string, escapes?: JsonEscapeMode, wr = false): Outcome {
  const hash = wr ? hashContainerWithoutResources : hashContainer;
  return outcome(() =>
    Number.parseInt(hash(input as ContainerInput, { kubeletVersion: version, jsonEscapes: escapes }), 16),
  );
}

/** What the public functions give: the tree outcome, then their refusals of non-containers and nameless containers. */
export function publicExpected(input: unknown, tree: Outcome): Outcome {
  if ('code' in tree) return tree;
  try {
    const json = containerJson(input as ContainerInput);
    checkContainerShape(json);
    checkContainerName(json);
  } catch (e) {
    return codeOf(e);
  }
  return tree;
}
