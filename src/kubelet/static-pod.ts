/**
 * Static pods (manifest files and URLs): when the manifest sets no `metadata.uid`, the kubelet
 * names the pod by a 128-bit hash of the decoded internal `api.Pod` (go-spew text), the node name
 * and the source path (pkg/kubelet/config/common.go, applyDefaults): MD5 up to 1.34, FNV-128a from
 * 1.35 (kubernetes#133511, in v1.35.0-alpha.3). A new UID is a new pod: the kubelet
 * kills every container of the old one. Reproducing that hash needs the internal Pod types of each
 * release, which the library does not model, so it decides conservatively: any content change, and
 * any kubelet minor change, is a new UID unless a fixed `metadata.uid` shows otherwise.
 */
import { isPlainObject, memberOf } from '../decode/input.js';
import { stableKey } from '../json/stable-key.js';

/** What the kubelet generates: the hex of a 128-bit hash (MD5, FNV-128a from 1.35), 32 lowercase hex digits. */
const GENERATED_UID = /^[0-9a-f]{32}$/;

/**
 * Whether `uid` could be one the kubelet generated. A static pod UID of any other form was set in
 * the manifest (`metadata.uid`), so it survives edits and kubelet upgrades.
 */
export function maybeGeneratedStaticUid(uid: string): boolean {
  return GENERATED_UID.test(uid);
}

/** `metadata.uid` of a manifest, when it sets one. */
export function manifestUid(doc: unknown): string | undefined {
  const meta = isPlainObject(doc) ? memberOf(doc, 'metadata') : undefined;
  const uid = isPlainObject(meta) ? memberOf(meta, 'uid') : undefined;
  return typeof uid === 'string' && uid !== '' ? uid : undefined;
}

/** The manifest without `status`, which the file source ignores. */
function contentKey(doc: unknown): string {
  if (!isPlainObject(doc)) return stableKey(doc);
  const copy: Record<string, unknown> = {};
  for (const k of Object.keys(doc)) if (k !== 'status') copy[k] = memberOf(doc, k);
  return stableKey(copy);
}

/** Whether editing a static pod's manifest from `before` to `after` gives the pod a new UID, and why. */
export function manifestEditRecreates(before: unknown, after: unknown): { recreated: boolean; reason: string } {
  const a = manifestUid(before);
  const b = manifestUid(after);
  if (a !== undefined && a === b) {
    return {
      recreated: false,
      reason: `the manifest sets metadata.uid ${JSON.stringify(a)}: the pod keeps its UID and each container follows its own rules`,
    };
  }
  if (a !== b) {
    return {
      recreated: true,
      reason: `metadata.uid changed (${JSON.stringify(a ?? null)} → ${JSON.stringify(b ?? null)}): a new pod`,
    };
  }
  if (contentKey(before) === contentKey(after)) {
    return { recreated: false, reason: 'the manifest is unchanged: the generated UID stays the same' };
  }
  return {
    recreated: true,
    reason:
      'static pod manifest edited without metadata.uid: the kubelet derives a new pod UID from the new content, kills the whole old pod and starts the new one (every container restarts, whatever its hash)',
  };
}
