// 1.19 adds SecurityContext.SeccompProfile (after ProcMount) and the types v1.SeccompProfile and v1.SeccompProfileType.
import { addField, addType, field, named, struct } from '../dsl.js';
import type { ReleaseDelta } from '../dsl.js';

export const v1_19: ReleaseDelta = {
  version: '1.19',
  source: {
    api: { commit: '890820cc5ea0ea1d2d7c3a769b9ba5fdcbfbeab6', date: '2020-08-26' },
    apimachinery: { commit: 'b63a0c883fbfc313249150449400788e5589ef23', date: '2020-08-21' },
  },
  changes: [
    addField('v1.SecurityContext', field('SeccompProfile', '*v1.SeccompProfile', 'seccompProfile,omitempty'), {
      after: 'ProcMount',
    }),
    addType(
      struct('v1.SeccompProfile', [
        field('Type', 'v1.SeccompProfileType', 'type'),
        field('LocalhostProfile', '*string', 'localhostProfile,omitempty'),
      ]),
    ),
    addType(named('v1.SeccompProfileType', 'string')),
  ],
};
