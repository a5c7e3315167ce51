// 1.9 adds Container.VolumeDevices (after VolumeMounts) and its element type v1.VolumeDevice.
import { addField, addType, field, struct } from '../dsl.js';
import type { ReleaseDelta } from '../dsl.js';

export const v1_9: ReleaseDelta = {
  version: '1.9',
  source: {
    api: { commit: 'af4bc157c3a209798fc897f6d4aaaaeb6c2e0d6a', date: '2017-12-14' },
    apimachinery: { commit: '180eddb345a5be3a157cea1c624700ad5bd27b8f', date: '2017-12-07' },
  },
  changes: [
    addField('v1.Container', field('VolumeDevices', '[]v1.VolumeDevice', 'volumeDevices,omitempty'), {
      after: 'VolumeMounts',
    }),
    addType(struct('v1.VolumeDevice', [field('Name', 'string', 'name'), field('DevicePath', 'string', 'devicePath')])),
  ],
};
