// 1.22 adds WindowsSecurityContextOptions.HostProcess (after RunAsUserName).
import { addField, field } from '../dsl.js';
import type { ReleaseDelta } from '../dsl.js';

export const v1_22: ReleaseDelta = {
  version: '1.22',
  source: {
    api: { commit: '7ee5548f30139395482912e3a26f661c21507462', date: '2021-08-04' },
    apimachinery: { commit: 'a644435e2c133d990b624858d9c01985d7f59adf', date: '2021-07-12' },
  },
  changes: [
    addField('v1.WindowsSecurityContextOptions', field('HostProcess', '*bool', 'hostProcess,omitempty'), {
      after: 'RunAsUserName',
    }),
  ],
};
