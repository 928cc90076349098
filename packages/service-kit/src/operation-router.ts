/**
 * Matches a request to a contract operation using the operation table's path
 * templates (never a retyped path). Literal segments beat parameters at the
 * first position where two templates differ, so /v1/minds/services/{mind_id}
 * wins over /v1/minds/{mind_id}/attachments for /v1/minds/services/x.
 */
import type { HttpMethod, OperationFacts } from '@gateway-minds/contract';

export type RouteMatch =
  | { kind: 'operation'; operation: OperationFacts; pathParams: Record<string, string>; malformed: boolean }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' };

interface CompiledTemplate {
  path: string;
  pattern: RegExp;
  names: string[];
  shape: boolean[]; // true = literal segment
  byMethod: Map<HttpMethod, OperationFacts>;
}

function compare(a: CompiledTemplate, b: CompiledTemplate): number {
  for (let i = 0; i < Math.min(a.shape.length, b.shape.length); i++) {
    if (a.shape[i] !== b.shape[i]) return a.shape[i] ? -1 : 1;
  }
  return 0;
}

export function createOperationRouter(operations: Iterable<OperationFacts>) {
  const templates = new Map<string, CompiledTemplate>();
  for (const operation of operations) {
    let template = templates.get(operation.path);
    if (!template) {
      const segments = operation.path.split('/').filter(Boolean);
      const names: string[] = [];
      const source = segments
        .map((segment) => {
          const param = /^\{(.+)\}$/.exec(segment);
          if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          names.push(param[1]!);
          return '([^/]+)';
        })
        .join('/');
      template = {
        path: operation.path,
        pattern: new RegExp(`^/${source}/?$`),
        names,
        shape: segments.map((s) => !s.startsWith('{')),
        byMethod: new Map(),
      };
      templates.set(operation.path, template);
    }
    template.byMethod.set(operation.method, operation);
  }
  const ordered = [...templates.values()].sort(compare);

  return {
    match(method: string, pathname: string): RouteMatch {
      const wanted = (method === 'HEAD' ? 'get' : method.toLowerCase()) as HttpMethod;
      const allow = new Set<string>();
      for (const template of ordered) {
        const found = template.pattern.exec(pathname);
        if (!found) continue;
        const operation = template.byMethod.get(wanted);
        if (operation) {
          const pathParams: Record<string, string> = {};
          let malformed = false;
          template.names.forEach((name, i) => {
            const decoded = safeDecode(found[i + 1]!);
            if (decoded === undefined) malformed = true;
            pathParams[name] = decoded ?? found[i + 1]!;
          });
          return { kind: 'operation', operation, pathParams, malformed };
        }
        for (const m of template.byMethod.keys()) allow.add(m.toUpperCase());
      }
      // RFC 9110 §9.3.2: wherever GET is allowed, so is HEAD (the service app answers it as GET).
      if (allow.has('GET')) allow.add('HEAD');
      return allow.size ? { kind: 'method-not-allowed', allow: [...allow].sort() } : { kind: 'not-found' };
    },
  };
}

export type OperationRouter = ReturnType<typeof createOperationRouter>;

/** The decoded segment, or undefined when its percent-encoding is malformed (or decodes to a lone surrogate). */
function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
