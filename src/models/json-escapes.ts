/** The Go toolchain fact the JSON-era hash depends on: how encoding/json escapes BS and FF. */

/**
 * Which Go toolchain's escaping of BS (0x08) and FF (0x0c) to reproduce: Go 1.22 writes `\b` and
 * `\f`, older Go wrote `\u0008` and `\u000c`. Only strings holding those bytes hash differently.
 *
 * @example
 * ```ts
 * import { preimage, type JsonEscapeMode } from 'kubelet-hash';
 *
 * const container = { name: 'app', image: 'busybox', args: ['\f'] };
 * const modes: JsonEscapeMode[] = ['pre-go1.22', 'go1.22'];
 * const args = modes.map((jsonEscapes) => preimage(container, { kubeletVersion: '1.29', jsonEscapes }).text.slice(32, -16));
 * args; // → ['"args":["\\u000c"]', '"args":["\\f"]']
 * ```
 *
 * @group Hashing
 */
export type JsonEscapeMode = 'go1.22' | 'pre-go1.22';
