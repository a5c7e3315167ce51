// 1.15 adds SecurityContext.WindowsOptions (after SELinuxOptions) and the type v1.WindowsSecurityContextOptions.
import { addField, addType, field, struct } from '../dsl.js';
import type { ReleaseDelta } from '../dsl.js';

export const v1_15: ReleaseDelta = {
  version: '1.15',
  source: {
    api: { commit: '7cf5895f2711098d7d9527db0a4a49fb0dff7de2', date: '2019-06-20' },
    apimachinery: { commit: '1799e75a07195de9460b8ef7300883499f12127b', date: '2019-06-12' },
  },
  changes: [
    addField(
      'v1.SecurityContext',
      field('WindowsOptions', '*v1.WindowsSecurityContextOptions', 'windowsOptions,omitempty'),
      { after: 'SELinuxOptions' },
    ),
    addType(
      struct('v1.WindowsSecurityContextOptions', [
        field('GMSACredentialSpecName', '*string', 'gmsaCredentialSpecName,omitempty'),
        field('GMSACredentialSpec', '*string', 'gmsaCredentialSpec,omitempty'),
      ]),
    ),
  ],
};
