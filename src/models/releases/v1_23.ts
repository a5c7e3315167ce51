// 1.23 splits v1.Handler in two: v1.LifecycleHandler (for Lifecycle's PostStart and PreStop) and v1.ProbeHandler (embedded in Probe, gaining GRPC and the type v1.GRPCAction).
import { addField, addType, copyType, field, renameType, replaceField, struct } from '../dsl.js';
import type { ReleaseDelta } from '../dsl.js';

export const v1_23: ReleaseDelta = {
  version: '1.23',
  source: {
    api: { commit: '872e73e89113b552c7677bb8e112b9ef7a61d826', date: '2021-12-07' },
    apimachinery: { commit: '1d209c836ad2fed6332e0aa08aefc669a649ba8e', date: '2021-12-03' },
  },
  changes: [
    // Lifecycle hooks move to a copy of the old Handler, which never gains GRPC.
    copyType('v1.Handler', 'v1.LifecycleHandler'),
    replaceField('v1.Lifecycle', field('PostStart', '*v1.LifecycleHandler', 'postStart,omitempty')),
    replaceField('v1.Lifecycle', field('PreStop', '*v1.LifecycleHandler', 'preStop,omitempty')),
    // What is left, Probe's embedded Handler, becomes ProbeHandler (the field is renamed with its type).
    renameType('v1.Handler', 'v1.ProbeHandler'),
    addField('v1.ProbeHandler', field('GRPC', '*v1.GRPCAction', 'grpc,omitempty'), { after: 'TCPSocket' }),
    addType(struct('v1.GRPCAction', [field('Port', 'int32', 'port'), field('Service', '*string', 'service')])),
  ],
};
