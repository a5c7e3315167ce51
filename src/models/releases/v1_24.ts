// 1.24 changes nothing the container hash can see; only the source commits move.
import type { ReleaseDelta } from '../dsl.js';

export const v1_24: ReleaseDelta = {
  version: '1.24',
  source: {
    api: { commit: '988d7a1d2141e6cdb6b4d3c1a0652471928351aa', date: '2022-05-03' },
    apimachinery: { commit: '97e5df2d0258ac077093867fabf508c1fc31f53b', date: '2022-03-31' },
  },
  changes: [],
};
