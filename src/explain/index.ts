/** Why a hash changed: field-level reasons derived from the release models and pre-images. */
export { explainHashChange, type ExplainOptions } from './explain.js';
export type { HashChangeExplanation, HashChangeReason, HashChangeReasonBase, HashSide } from './types.js';
