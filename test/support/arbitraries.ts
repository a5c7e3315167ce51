/** fast-check generators of containers as a user would write them (valid for every release). */
import fc from 'fast-check';
import { supportedReleases } from '../../src/releases/release-info.js';

const text = fc.string({ unit: 'grapheme', maxLength: 12 });
const word = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/);

const quantitySpelling = fc.oneof(
  fc.constantFrom(
    '0',
    '1',
    '0.5',
    '500m',
    '1Gi',
    '1.5Gi',
    '128Mi',
    '1e3',
    '1E3',
    '129M',
    '100Ki',
    '0.1',
    '2',
    '250m',
    '64Mi',
  ),
  fc.nat({ max: 100000 }).map((n) => `${n}m`),
  fc.nat({ max: 4096 }).map((n) => `${n}Mi`),
);

const envVar = fc.record({ name: word, value: fc.option(text, { nil: undefined }) }, { requiredKeys: ['name'] });
const port = fc.record(
  {
    name: fc.option(word, { nil: undefined }),
    containerPort: fc.integer({ min: 1, max: 65535 }),
    protocol: fc.constantFrom('TCP', 'UDP'),
  },
  { requiredKeys: ['containerPort'] },
);
const resourceList = fc.dictionary(
  fc.constantFrom('cpu', 'memory', 'example.com/gpu', 'ephemeral-storage'),
  quantitySpelling,
  { maxKeys: 3 },
);

export const containerArb = fc.record(
  {
    name: word,
    image: fc.constantFrom('nginx', 'nginx:1.27', 'registry.example.com/app@sha256:abc', 'busybox'),
    command: fc.array(text, { maxLength: 3 }),
    args: fc.array(text, { maxLength: 3 }),
    workingDir: fc.constantFrom('', '/srv'),
    ports: fc.array(port, { maxLength: 2 }),
    env: fc.array(envVar, { maxLength: 3 }),
    resources: fc.record({ limits: resourceList, requests: resourceList }, { requiredKeys: [] }),
    volumeMounts: fc.array(
      fc.record({ name: word, mountPath: fc.constantFrom('/data', '/etc/x'), readOnly: fc.boolean() }),
      { maxLength: 2 },
    ),
    livenessProbe: fc.record({
      tcpSocket: fc.record({ port: fc.oneof(fc.integer({ min: 1, max: 65535 }), word) }),
      periodSeconds: fc.integer({ min: 1, max: 60 }),
    }),
    securityContext: fc.record(
      { privileged: fc.boolean(), runAsUser: fc.bigInt({ min: 0n, max: 2n ** 62n }) },
      { requiredKeys: [] },
    ),
    imagePullPolicy: fc.constantFrom('Always', 'IfNotPresent', 'Never'),
    stdin: fc.boolean(),
    tty: fc.boolean(),
  },
  { requiredKeys: ['name'] },
);

export const releaseArb = fc.constantFrom(...supportedReleases());
