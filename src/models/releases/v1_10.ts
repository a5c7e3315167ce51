// 1.10 adds SecurityContext.RunAsGroup (after RunAsUser).
import { addField, field } from '../dsl.js';
import type { ReleaseDelta } from '../dsl.js';

export const v1_10: ReleaseDelta = {
  version: '1.10',
  source: {
    api: { commit: '73d903622b7391f3312dcbac6483fed484e185f8', date: '2018-03-08' },
    apimachinery: { commit: '302974c03f7e50f16561ba237db776ab93594ef6', date: '2018-02-28' },
  },
  changes: [
    addField('v1.SecurityContext', field('RunAsGroup', '*int64', 'runAsGroup,omitempty'), { after: 'RunAsUser' }),
  ],
};
