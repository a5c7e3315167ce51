/**
 * zod schemas of the parts of runtime records we read. Real records carry many more fields (and
 * they change between runtime releases), so every object is loose and only what we read is checked.
 * Each leaf carries, as its zod message, the expectation an error should state.
 */
import type { ZodOptional, ZodString, ZodType } from 'zod';
import { parseWith, RecordError } from '../errors.js';
import type { JsonPathSegment } from '../errors.js';
import { HASH_KEY, HASH_WITHOUT_RESOURCES_KEY } from '../releases/index.js';
import type { RecordKind } from './types.js';
import { lazySchema } from '../on-demand.js';

/** The container labels the kubelet sets on every container it creates (kuberuntime/labels.go). */
export const POD_NAME_LABEL = 'io.kubernetes.pod.name';
export const POD_NAMESPACE_LABEL = 'io.kubernetes.pod.namespace';
export const POD_UID_LABEL = 'io.kubernetes.pod.uid';
export const CONTAINER_NAME_LABEL = 'io.kubernetes.container.name';

/** dockershim and cri-dockerd keep CRI annotations as docker labels with this prefix. */
export const DOCKER_ANNOTATION_PREFIX = 'annotation.';

/** CRI-O keeps the CRI annotations, JSON-encoded, in this OCI spec annotation (and restores from it). */
export const CRIO_ANNOTATIONS_KEY = 'io.kubernetes.cri-o.Annotations';

/**
 * Whether a docker container was created by the kubelet: `docker inspect $(docker ps -q)` also
 * lists the node's other containers, which carry none of the kubelet's labels and are skipped.
 */
export function isKubeletDockerContainer(container: unknown): boolean {
  const config =
    container !== null && typeof container === 'object' ? (container as Record<string, unknown>)['Config'] : undefined;
  const labels =
    config !== null && typeof config === 'object' ? (config as Record<string, unknown>)['Labels'] : undefined;
  return labels !== null && typeof labels === 'object' && Object.hasOwn(labels, CONTAINER_NAME_LABEL);
}

/**
 * The record schemas, built on first use (zod loads when a record is first read, not when the
 * package is imported).
 */
export const recordSchemas = lazySchema((z) => {
  function requiredLabel(key: string) {
    return z.string(`the kubelet's container label ${key} as a string`);
  }

  function optionalText(key: string) {
    return z.string(`${key} as a string when present`).optional();
  }

  /** Labels with the pod identity; other labels are not looked at. */
  function identityLabels(extra: Record<string, ZodOptional<ZodString>> = {}) {
    return z.looseObject(
      {
        [POD_NAME_LABEL]: requiredLabel(POD_NAME_LABEL),
        [POD_NAMESPACE_LABEL]: requiredLabel(POD_NAMESPACE_LABEL),
        [POD_UID_LABEL]: requiredLabel(POD_UID_LABEL),
        [CONTAINER_NAME_LABEL]: requiredLabel(CONTAINER_NAME_LABEL),
        ...extra,
      },
      'an object of container labels',
    );
  }

  function hashAnnotations(prefix: string) {
    return {
      [prefix + HASH_KEY]: optionalText(prefix + HASH_KEY),
      [prefix + HASH_WITHOUT_RESOURCES_KEY]: optionalText(prefix + HASH_WITHOUT_RESOURCES_KEY),
    };
  }

  const annotationMap = z.looseObject(hashAnnotations(''), 'an object of annotations');

  /** docker keeps labels in `Config.Labels`, CRI annotations among them with the `annotation.` prefix. */
  const dockerConfig = z.looseObject(
    { Labels: identityLabels(hashAnnotations(DOCKER_ANNOTATION_PREFIX)) },
    'an object (the container config)',
  );

  /** One element of `docker inspect` output (engine API ContainerJSON). */
  const dockerInspectContainerSchema = z.looseObject(
    { Id: z.string('the container Id as a string'), Name: optionalText('Name'), Config: dockerConfig },
    'an object (one container of docker inspect)',
  );

  /** A container the kubelet did not create (no `io.kubernetes.container.name` label): only its shape is checked. */
  const otherDockerContainerSchema = z.looseObject(
    { Id: z.string('the container Id as a string') },
    'an object (one container of docker inspect)',
  );

  /** `docker inspect <id>…` prints a JSON array with one object per container. */
  const dockerInspectSchema = z
    .array(z.unknown(), 'a JSON array of containers (docker inspect output)')
    .min(1, 'at least one container in the docker inspect array');

  /** `/var/lib/docker/containers/<id>/config.v2.json`: the daemon's own record (note `ID`, not `Id`). */
  const dockerConfigV2Schema = z.looseObject(
    { ID: z.string('the container ID as a string'), Name: optionalText('Name'), Config: dockerConfig },
    'an object (docker config.v2.json)',
  );

  /** `crictl inspect <id>`: the CRI ContainerStatus plus the runtime's verbose `info`. */
  const crictlInspectSchema = z.looseObject(
    {
      status: z.looseObject(
        {
          id: z.string('the container id as a string'),
          labels: identityLabels(),
          annotations: annotationMap.optional(),
        },
        'an object (the CRI container status)',
      ),
      info: z
        .looseObject(
          {
            // containerd: the CRI ContainerConfig the kubelet sent, annotations included.
            config: z
              .looseObject({ annotations: annotationMap.optional() }, 'an object (the CRI container config)')
              .nullable()
              .optional(),
            // containerd and CRI-O: the OCI runtime spec; CRI-O copies every CRI annotation into it.
            runtimeSpec: z
              .looseObject(
                {
                  annotations: z
                    .looseObject(
                      { ...hashAnnotations(''), [CRIO_ANNOTATIONS_KEY]: optionalText(CRIO_ANNOTATIONS_KEY) },
                      'an object of annotations',
                    )
                    .nullable()
                    .optional(),
                },
                'an object (the OCI runtime spec)',
              )
              .nullable()
              .optional(),
          },
          "an object (the runtime's verbose info)",
        )
        .nullable()
        .optional(),
    },
    'an object (crictl inspect output)',
  );

  /** CRI-O's JSON-encoded annotations must decode to an object of strings where we read them. */
  const crioEmbeddedAnnotationsSchema = z.looseObject(hashAnnotations(''), 'a JSON object of annotations');

  const byKind: Readonly<Record<RecordKind, ZodType>> = {
    'docker-inspect': dockerInspectSchema,
    'docker-config-v2': dockerConfigV2Schema,
    'crictl-inspect': crictlInspectSchema,
  };
  return { byKind, dockerInspectContainerSchema, otherDockerContainerSchema, crioEmbeddedAnnotationsSchema };
});

/** Turns the first zod issue into our error type (path + expectation), never letting a ZodError out. */
export function validateWith(schema: ZodType, doc: unknown, basePath: readonly JsonPathSegment[] = []): void {
  parseWith(
    schema,
    doc,
    (issue) =>
      new RecordError(
        'INVALID_RECORD',
        issue.path,
        issue.message,
        issue.code === 'invalid_type' ? `found ${describeFound(doc, issue.inside)}` : undefined,
      ),
    basePath,
  );
}

/** Validates a parsed record of a known kind; throws {@link RecordError} naming the first bad path. */
export function validateRecord(kind: RecordKind, doc: unknown): void {
  const schemas = recordSchemas();
  validateWith(schemas.byKind[kind], doc);
  if (kind !== 'docker-inspect') return;
  // Each element on its own: the kubelet's containers strictly, the node's others by shape only.
  (doc as unknown[]).forEach((container, i) => {
    validateWith(
      isKubeletDockerContainer(container) ? schemas.dockerInspectContainerSchema : schemas.otherDockerContainerSchema,
      container,
      [i],
    );
  });
}

function describeFound(doc: unknown, path: readonly JsonPathSegment[]): string {
  let cur: unknown = doc;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, seg)) return 'nothing (missing)';
    cur = (cur as Record<string | number, unknown>)[seg];
  }
  if (cur === null) return 'null';
  if (Array.isArray(cur)) return 'an array';
  return `a ${typeof cur}`;
}
