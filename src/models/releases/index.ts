// The release list: every supported kubelet release in order, the 1.8 base, then each later
// release as a delta (types and kubelet facts) on the one before. Models, the release registry,
// CLI texts and tests all follow from this list; a new release is one file and one line here.
import type { ReleaseDelta } from '../dsl.js';
import { v1_8 } from './v1_8.js';
import { v1_9 } from './v1_9.js';
import { v1_10 } from './v1_10.js';
import { v1_11 } from './v1_11.js';
import { v1_12 } from './v1_12.js';
import { v1_13 } from './v1_13.js';
import { v1_14 } from './v1_14.js';
import { v1_15 } from './v1_15.js';
import { v1_16 } from './v1_16.js';
import { v1_17 } from './v1_17.js';
import { v1_18 } from './v1_18.js';
import { v1_19 } from './v1_19.js';
import { v1_20 } from './v1_20.js';
import { v1_21 } from './v1_21.js';
import { v1_22 } from './v1_22.js';
import { v1_23 } from './v1_23.js';
import { v1_24 } from './v1_24.js';
import { v1_25 } from './v1_25.js';
import { v1_26 } from './v1_26.js';
import { v1_27 } from './v1_27.js';
import { v1_28 } from './v1_28.js';
import { v1_29 } from './v1_29.js';
import { v1_30 } from './v1_30.js';
import { v1_31 } from './v1_31.js';
import { v1_32 } from './v1_32.js';
import { v1_33 } from './v1_33.js';
import { v1_34 } from './v1_34.js';
import { v1_35 } from './v1_35.js';
import { v1_36 } from './v1_36.js';
import { v1_37 } from './v1_37.js';

export const BASE_RELEASE = v1_8;

/** Ascending: each delta applies to the release before it. */
export const RELEASE_DELTAS: readonly ReleaseDelta[] = [
  v1_9,
  v1_10,
  v1_11,
  v1_12,
  v1_13,
  v1_14,
  v1_15,
  v1_16,
  v1_17,
  v1_18,
  v1_19,
  v1_20,
  v1_21,
  v1_22,
  v1_23,
  v1_24,
  v1_25,
  v1_26,
  v1_27,
  v1_28,
  v1_29,
  v1_30,
  v1_31,
  v1_32,
  v1_33,
  v1_34,
  v1_35,
  v1_36,
  v1_37,
];
