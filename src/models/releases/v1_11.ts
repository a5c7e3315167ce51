// 1.11 changes nothing the container hash can see; only the source commits move.
import type { ReleaseDelta } from '../dsl.js';

export const v1_11: ReleaseDelta = {
  version: '1.11',
  source: {
    api: { commit: '072894a440bdee3a891dea811fe42902311cd2a3', date: '2018-06-28' },
    apimachinery: { commit: '103fd098999dc9c0c88536f5c9ad2e5da39373ae', date: '2018-06-21' },
  },
  changes: [],
};
