/** Runs before every test file: generator bugs in the fused hashers throw instead of falling back silently. */
import { throwFusedBugs } from '../../src/hash/fused/release-hashers.js';

throwFusedBugs(true);
