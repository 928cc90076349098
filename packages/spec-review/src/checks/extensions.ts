/** This repository's operation extensions that put a condition on callers or change how they call. */
import { show, type Change, type Json, type Severity } from '../model.js';
import { emit } from '../scope.js';

const conditions = [
  ['x-sandbox-selection', 'needs a verified Sandbox selection'],
  ['x-original-session', 'needs the original signed-in session'],
  ['x-admission-setting', 'is admitted only by a server setting (off by default)'],
] as const;

export function compareExtensions(b: Json, h: Json, out: Change[], pointer: string): void {
  for (const [extension, meaning] of conditions) {
    const before = b[extension];
    const after = h[extension];
    if (before === after) continue;
    const at = after === undefined ? pointer : `${pointer}/${extension}`;
    if (after !== undefined && before === undefined) emit(out, `api-${extension}-added`, extension, `now ${meaning} (\`${extension}: ${String(after)}\`)`, at);
    else if (after === undefined) emit(out, `api-${extension}-removed`, extension, `no longer ${meaning}`, at);
    else emit(out, `api-${extension}-changed`, extension, `changed ${show(before)} → ${show(after)}`, at);
  }
  for (const extension of ['x-dpop-htm', 'x-credential-refusal', 'x-read-only', 'x-automatic-retry']) {
    const before = b[extension];
    const after = h[extension];
    if (JSON.stringify(before) === JSON.stringify(after)) continue;
    const id =
      extension === 'x-dpop-htm' ? (before === undefined ? 'api-x-dpop-htm-added' : 'api-x-dpop-htm-changed') : extension === 'x-read-only' ? (before === true ? 'api-x-read-only-removed' : 'api-x-read-only-changed') : `api-${extension}-changed`;
    emit(out, id, extension, `changed ${before === undefined ? '(none)' : show(before)} → ${after === undefined ? '(none)' : show(after)}`, after === undefined ? pointer : `${pointer}/${extension}`);
  }
}

/** Operation fields the families above and the operation checks read; any other that changed is reported as `api-operation-changed`. */
export const examinedOperationFields = new Set([
  'operationId', 'summary', 'description', 'deprecated', 'x-sunset', 'x-stability-level', 'security', 'tags', 'parameters', 'requestBody', 'responses',
  ...conditions.map(([x]) => x), 'x-dpop-htm', 'x-credential-refusal', 'x-read-only', 'x-automatic-retry',
]);
export type { Severity };
