// 1.16 switches the kubelet to hashing Container's JSON, adds Container.StartupProbe (after ReadinessProbe) and WindowsSecurityContextOptions.RunAsUserName.
import { addField, field } from '../dsl.js';
import type { ReleaseDelta } from '../dsl.js';

export const v1_16: ReleaseDelta = {
  version: '1.16',
  source: {
    api: { commit: '95b840bb6a1f5f0462af804c8589396d294d4914', date: '2019-09-18' },
    apimachinery: { commit: '27d36303b6556f377b4f34e64705fa9024a12b0c', date: '2019-09-13' },
  },
  kubelet: { kubeletHashAlgorithm: 'json', jsonEscapes: 'pre-go1.22' },
  changes: [
    addField('v1.Container', field('StartupProbe', '*v1.Probe', 'startupProbe,omitempty'), { after: 'ReadinessProbe' }),
    addField('v1.WindowsSecurityContextOptions', field('RunAsUserName', '*string', 'runAsUserName,omitempty'), {
      after: 'GMSACredentialSpec',
    }),
  ],
};
