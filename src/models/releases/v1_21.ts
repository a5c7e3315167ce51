// 1.21 adds Probe.TerminationGracePeriodSeconds (after FailureThreshold).
import { addField, field } from '../dsl.js';
import type { ReleaseDelta } from '../dsl.js';

export const v1_21: ReleaseDelta = {
  version: '1.21',
  source: {
    api: { commit: '5d0d5b56b51109a75225966be27ca7b6c6ca6dcd', date: '2021-04-08' },
    apimachinery: { commit: 'e337f44144a6ffeee2758c80dea17dd53fa6cbf4', date: '2021-03-29' },
  },
  changes: [
    addField('v1.Probe', field('TerminationGracePeriodSeconds', '*int64', 'terminationGracePeriodSeconds,omitempty'), {
      after: 'FailureThreshold',
    }),
  ],
};
