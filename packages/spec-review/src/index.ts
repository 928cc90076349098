/**
 * @gateway-minds/spec-review: direction-aware comparison of two bundled
 * OpenAPI 3.0 or 3.1 documents, with a stable check id and level on every
 * change, rendered as Markdown, JSON or GitHub annotations.
 */
export * from './compare.js';
export * from './report.js';
export * from './formats.js';
export { loadDocument, type LoadedDocument } from './load.js';
export { registry, checkOf, isRegistered, generatedClientLevels, type CheckDefinition, type CheckDirection, type CheckFamily } from './registry.js';
