// 1.20 changes nothing the container hash can see; only the source commits move.
import type { ReleaseDelta } from '../dsl.js';

export const v1_20: ReleaseDelta = {
  version: '1.20',
  source: {
    api: { commit: 'e08ce0f5d9fb95dd1bf4563c73cb925daf192377', date: '2020-12-08' },
    apimachinery: { commit: '2456ebdaba229616fab2161a615148884b46644b', date: '2020-11-18' },
  },
  changes: [],
};
