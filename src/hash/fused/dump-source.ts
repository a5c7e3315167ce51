/**
 * Prints the generated JavaScript of one release's fused hashers, for reading or stepping through:
 * `npm run dump:fused -- 1.29` (optionally `go1.22` or `pre-go1.22` after the release). In a debugger
 * the same source shows as `kubelet-hash/fused/v1.29-<mode>.js` (its `//# sourceURL`).
 */
import { releaseInfo } from '../../releases/index.js';
import type { JsonEscapeMode } from '../../models/json-escapes.js';
import { fusedSource } from './release-hashers.js';

const [version = '1.29', escapes] = process.argv.slice(2);
const source = fusedSource(releaseInfo(version), escapes as JsonEscapeMode | undefined);
process.stdout.write(source ?? `release ${version} has no generated hasher (1.31+ hashes name and image by hand)\n`);
