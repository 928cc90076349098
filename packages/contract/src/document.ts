/**
 * The bundled OpenAPI document (refs kept, as servers and validators want it).
 * Large: import it only where the whole document is needed. The fully
 * dereferenced twin is the file `@gateway-minds/contract/openapi.dereferenced.json`.
 */
export { openapiDocument } from './generated/document.js';
