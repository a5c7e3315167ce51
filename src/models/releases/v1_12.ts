// 1.12 adds SecurityContext.ProcMount and the type v1.ProcMountType; its tag `procMount,omitEmpty` (capital E) is not omitempty to encoding/json.
import { addField, addType, field, named } from '../dsl.js';
import type { ReleaseDelta } from '../dsl.js';

export const v1_12: ReleaseDelta = {
  version: '1.12',
  source: {
    api: { commit: 'fd83cbc87e7632ccd8bbab63d2b673d4e0c631cc', date: '2018-10-04' },
    apimachinery: { commit: '6dd46049f39503a1fc8d65de4bd566829e95faff', date: '2018-09-12' },
  },
  changes: [
    addField('v1.SecurityContext', field('ProcMount', '*v1.ProcMountType', 'procMount,omitEmpty'), {
      after: 'AllowPrivilegeEscalation',
    }),
    addType(named('v1.ProcMountType', 'string')),
  ],
};
