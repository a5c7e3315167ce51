// 1.30 is built with Go 1.22 (JSON escapes \b and \f), adds VolumeMount.RecursiveReadOnly and SecurityContext.AppArmorProfile with their types.
import { addField, addType, field, named, struct } from '../dsl.js';
import type { ReleaseDelta } from '../dsl.js';

export const v1_30: ReleaseDelta = {
  version: '1.30',
  source: {
    api: { commit: 'fb932d2704f6db73ad667467c071fa0021b4f11a', date: '2024-04-17' },
    apimachinery: { commit: '37988e577e160bf7749437141fee1d6b8ca15dd6', date: '2024-04-05' },
  },
  kubelet: { jsonEscapes: 'go1.22' },
  changes: [
    addField('v1.VolumeMount', field('RecursiveReadOnly', '*v1.RecursiveReadOnlyMode', 'recursiveReadOnly,omitempty'), {
      after: 'ReadOnly',
    }),
    addField('v1.SecurityContext', field('AppArmorProfile', '*v1.AppArmorProfile', 'appArmorProfile,omitempty'), {
      after: 'SeccompProfile',
    }),
    addType(named('v1.RecursiveReadOnlyMode', 'string')),
    addType(
      struct('v1.AppArmorProfile', [
        field('Type', 'v1.AppArmorProfileType', 'type'),
        field('LocalhostProfile', '*string', 'localhostProfile,omitempty'),
      ]),
    ),
    addType(named('v1.AppArmorProfileType', 'string')),
  ],
};
