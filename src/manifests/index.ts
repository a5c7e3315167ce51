/** Manifests as kubectl reads them: JSON, NDJSON and YAML streams, with a source position per value. */
export {
  readDocuments,
  manifestObjects,
  type ManifestDocument,
  type ManifestObject,
  type SourcePosition,
} from './read-documents.js';
