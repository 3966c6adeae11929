/**
 * The OpenAPI 3.1.0 document: the single source of truth for routes and validation. Loaded once,
 * served as JSON or YAML by the export endpoint.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';

/** The loaded document and its two serialisations. */
export interface OpenApiDocument {
  readonly document: Readonly<Record<string, unknown>>;
  readonly json: string;
  readonly yaml: string;
}

/** Path of openapi.yaml, found from sources (tsx) and from the compiled dist/ alike. */
export function openApiPath(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  // <root>/facade/src/domain or <root>/dist/facade/src/domain
  const root = here.includes(`${join('dist', 'facade')}`) ? join(here, '..', '..', '..', '..') : join(here, '..', '..', '..');
  return join(root, 'facade', 'openapi', 'openapi.yaml');
}

/** Reads and parses the document. */
export function loadOpenApiDocument(path = openApiPath()): OpenApiDocument {
  const source = readFileSync(path, 'utf8');
  const document = parse(source) as Record<string, unknown>;
  return { document, json: JSON.stringify(document, null, 2), yaml: stringify(document) };
}

/** HTTP methods an OpenAPI path item can hold. */
export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Every operation in the document: method, OpenAPI path and operationId. */
export function operationsOf(doc: OpenApiDocument): { method: (typeof HTTP_METHODS)[number]; path: string; operationId: string }[] {
  const paths = (doc.document['paths'] ?? {}) as Record<string, Record<string, { operationId?: string }>>;
  const out: { method: (typeof HTTP_METHODS)[number]; path: string; operationId: string }[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (op?.operationId) out.push({ method, path, operationId: op.operationId });
    }
  }
  return out;
}
