// 1.31 hashes only name and image (HashContainerWithoutResources is gone) and adds ResourceClaim.Request (after Name).
import { addField, field } from '../dsl.js';
import type { ReleaseDelta } from '../dsl.js';

export const v1_31: ReleaseDelta = {
  version: '1.31',
  source: {
    api: { commit: '2df39ffd2977494f6e7b8dc38206eec1a1129e38', date: '2024-08-13' },
    apimachinery: { commit: 'a8f449e276fe566efddb149992049c78f0088492', date: '2024-07-19' },
  },
  kubelet: { kubeletHashAlgorithm: 'name-image', hasHashWithoutResources: false },
  changes: [addField('v1.ResourceClaim', field('Request', 'string', 'request,omitempty'), { after: 'Name' })],
};
