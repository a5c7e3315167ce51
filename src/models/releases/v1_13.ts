// 1.13 corrects the ProcMount tag to `procMount,omitempty`.
import { field, replaceField } from '../dsl.js';
import type { ReleaseDelta } from '../dsl.js';

export const v1_13: ReleaseDelta = {
  version: '1.13',
  source: {
    api: { commit: '89a74a8d264df0e993299876a8cde88379b940ee', date: '2018-12-04' },
    apimachinery: { commit: '2b1284ed4c93a43499e781493253e2ac5959c4fd', date: '2018-11-27' },
  },
  changes: [replaceField('v1.SecurityContext', field('ProcMount', '*v1.ProcMountType', 'procMount,omitempty'))],
};
