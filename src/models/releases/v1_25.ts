// 1.25 changes nothing the container hash can see; only the source commits move.
import type { ReleaseDelta } from '../dsl.js';

export const v1_25: ReleaseDelta = {
  version: '1.25',
  source: {
    api: { commit: 'e9a69791a998e7ead3a95fec1e420d52d62aa0f8', date: '2022-08-23' },
    apimachinery: { commit: '117bd9b56ec3fe6b4891d86097971e49bf9f68f4', date: '2022-08-05' },
  },
  changes: [],
};
