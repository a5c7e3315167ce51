// 1.18 changes nothing the container hash can see; only the source commits move.
import type { ReleaseDelta } from '../dsl.js';

export const v1_18: ReleaseDelta = {
  version: '1.18',
  source: {
    api: { commit: 'd2dce8e1788e4be2be3a62b6439b3eaa087df0df', date: '2020-03-26' },
    apimachinery: { commit: '105e0c6d63f10531ed07f3b5a2195771a0fa444b', date: '2020-03-21' },
  },
  changes: [],
};
