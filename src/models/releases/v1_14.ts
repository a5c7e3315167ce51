// 1.14 adds VolumeMount.SubPathExpr (after MountPropagation).
import { addField, field } from '../dsl.js';
import type { ReleaseDelta } from '../dsl.js';

export const v1_14: ReleaseDelta = {
  version: '1.14',
  source: {
    api: { commit: '40a48860b5abbba9aa891b02b32da429b08d96a0', date: '2019-03-13' },
    apimachinery: { commit: 'd7deff9243b165ee192f5551710ea4285dcfd615', date: '2019-03-13' },
  },
  changes: [
    addField('v1.VolumeMount', field('SubPathExpr', 'string', 'subPathExpr,omitempty'), { after: 'MountPropagation' }),
  ],
};
