// 1.17 widens intstr.Type from int to int64.
import { named, replaceType } from '../dsl.js';
import type { ReleaseDelta } from '../dsl.js';

export const v1_17: ReleaseDelta = {
  version: '1.17',
  source: {
    api: { commit: '4c9a86741a7ab3890dd9e0777e85d8eee48bf59c', date: '2019-12-10' },
    apimachinery: { commit: '79c2a76c473a20cdc4ce59cae4b72529b5d9d16b', date: '2019-11-21' },
  },
  changes: [replaceType(named('intstr.Type', 'int64'))],
};
