// 1.26 adds ResourceRequirements.Claims (after Requests) and the type v1.ResourceClaim.
import { addField, addType, field, struct } from '../dsl.js';
import type { ReleaseDelta } from '../dsl.js';

export const v1_26: ReleaseDelta = {
  version: '1.26',
  source: {
    api: { commit: '2ee9a6c86388e566a44260fe38195ca08a8d5b70', date: '2022-12-09' },
    apimachinery: { commit: '5d4cdd22b0f7c364f4113b8bb2086763cf2a131c', date: '2022-12-08' },
  },
  changes: [
    addField('v1.ResourceRequirements', field('Claims', '[]v1.ResourceClaim', 'claims,omitempty'), {
      after: 'Requests',
    }),
    addType(struct('v1.ResourceClaim', [field('Name', 'string', 'name')])),
  ],
};
