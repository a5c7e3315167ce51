/**
 * The CRI plugin's container metadata extension (`io.cri-containerd.container.metadata`): an Any
 * with type URL `github.com/containerd/cri/pkg/store/container/Metadata` around Go encoding/json of
 * `{"Version":"v1","Metadata":{"ID","Name","SandboxID","Config",…}}`, where `Config` is the CRI
 * ContainerConfig (JSON keys `labels`, `annotations`, …). `ContainerStatus`/`ListContainers`
 * serve `Metadata.Config.annotations`, which is where the kubelet's hash lives.
 */
import { RecordError } from '../../errors.js';
import { criAttempt, identity, mapSites, type RecordContainer } from '../../runtime-records/index.js';
import { nodeAt, scanJson, toPlainValue } from '../../json/spans.js';
import { HASH_KEY, HASH_WITHOUT_RESOURCES_KEY } from '../../releases/index.js';

/** The extension key in a container's `extensions` bucket. */
export const CONTAINER_METADATA_EXTENSION = 'io.cri-containerd.container.metadata';
/** The type URL the CRI plugin registers for its container metadata. */
export const CONTAINER_METADATA_TYPE_URL = 'github.com/containerd/cri/pkg/store/container/Metadata';

const CONFIG = ['Metadata', 'Config'];
const ANNOTATIONS = [...CONFIG, 'annotations'];
const LABELS = [...CONFIG, 'labels'];
/** The CRI ContainerMetadata the kubelet sent (`{name, attempt}`): the attempt CRI serves back. */
const CRI_METADATA = [...CONFIG, 'metadata'];

/** Locates identity and hash copies in the metadata JSON `text` of container `id` (every byte validated). */
export function locateMetadata(text: string, id: string): RecordContainer {
  const root = scanJson(text);
  const version = nodeAt(root, ['Version']);
  if (version?.type !== 'string' || version.value !== 'v1') {
    throw new RecordError('INVALID_RECORD', ['Version'], 'CRI container metadata version "v1"', `container ${id}`);
  }
  const config = nodeAt(root, CONFIG);
  if (config?.type !== 'object')
    throw new RecordError('INVALID_RECORD', CONFIG, 'the CRI container config (an object)', `container ${id}`);
  const labels = nodeAt(root, LABELS);
  const plainLabels = labels?.type === 'object' ? { Metadata: { Config: { labels: toPlainValue(labels) } } } : {};
  const metadata = nodeAt(root, CRI_METADATA);
  const attempt = criAttempt(metadata ? toPlainValue(metadata) : undefined, CRI_METADATA);
  return {
    containerId: id,
    runtime: 'containerd',
    ...identity(plainLabels, LABELS),
    ...(attempt !== undefined ? { attempt } : {}),
    sites: mapSites(root, ANNOTATIONS),
    primaryPath: {
      hash: [...ANNOTATIONS, HASH_KEY],
      hashWithoutResources: [...ANNOTATIONS, HASH_WITHOUT_RESOURCES_KEY],
    },
  };
}
