/**
 * The OpenAPI 3.1.0 document: the single source of truth for routes and validation. Loaded once,
 * served as JSON or YAML by the export endpoint. The AsyncAPI 3 document of the speech WebSocket
 * (`asyncapi.yaml` beside it: its messages, validated by the socket) is loaded and served the same way.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import { VERSION } from '@tts/common';

/** A loaded document and its two serialisations (made at their first use). */
export interface OpenApiDocument {
  readonly document: Readonly<Record<string, unknown>>;
  readonly json: string;
  readonly yaml: string;
}

/** Path of openapi.yaml: `<facade>/openapi/`, two levels above this module in `src/domain/` and `dist/domain/` alike. */
export function openApiPath(): string {
  return fileURLToPath(new URL('../../openapi/openapi.yaml', import.meta.url));
}

/** Path of asyncapi.yaml, beside openapi.yaml. */
export function asyncApiPath(): string {
  return fileURLToPath(new URL('../../openapi/asyncapi.yaml', import.meta.url));
}

/** Reads and parses the OpenAPI document. */
export function loadOpenApiDocument(path = openApiPath()): OpenApiDocument {
  return loadApiDocument(path);
}

/** Reads and parses the AsyncAPI document (same shape: a document and its serialisations). */
export function loadAsyncApiDocument(path = asyncApiPath()): OpenApiDocument {
  return loadApiDocument(path);
}

function loadApiDocument(path: string): OpenApiDocument {
  const source = readFileSync(path, 'utf8');
  const document = parse(source) as Record<string, unknown>;
  // The platform version is written once, in the root package.json.
  document['info'] = { ...(document['info'] as Record<string, unknown>), version: VERSION };
  // Serialised when the export endpoint first asks: kept from the start they and the garbage of
  // making them took megabytes of every facade's heap (bench/README.md, `memory`).
  let json: string | undefined;
  let yaml: string | undefined;
  return {
    document,
    get json() {
      json ??= JSON.stringify(document, null, 2);
      return json;
    },
    get yaml() {
      yaml ??= stringify(document);
      return yaml;
    },
  };
}

/** HTTP methods an OpenAPI path item can hold. */
export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** One documented operation. */
export interface DocumentedOperation {
  readonly method: (typeof HTTP_METHODS)[number];
  readonly path: string;
  readonly operationId: string;
  /** The operation's `security` requirements (undefined: the document's default). */
  readonly security: unknown;
  /** `x-rate-profile`: the rate profile a studio session is counted against (default `studio`). */
  readonly rateProfile: string | undefined;
  /** `x-studio-role`: the role a studio session needs (e.g. `admin`). */
  readonly studioRole: string | undefined;
  /** `x-max-upload-bytes`: a cap on the uploaded file below the global one. */
  readonly maxUploadBytes: number | undefined;
  /** Media types of the request body (lower case; empty: the operation takes no body). */
  readonly bodyMediaTypes: readonly string[];
  /** Files its multipart form may carry: the form schema's `format: binary` properties (0 without one). */
  readonly multipartFiles: number;
  /** `x-long-lived`: its answer is a stream that does not end by itself (capped per credential). */
  readonly longLived: boolean;
}

type Schema = { $ref?: string; properties?: Record<string, Schema>; format?: string };
type RequestBody = { content?: Record<string, { schema?: Schema }> };

/** `schema`, or the component its `$ref` names (`#/components/schemas/X`). */
function resolved(doc: OpenApiDocument, schema: Schema | undefined): Schema | undefined {
  const ref = schema?.$ref;
  if (ref === undefined) return schema;
  const name = /^#\/components\/schemas\/(.+)$/.exec(ref)?.[1];
  const schemas = ((doc.document['components'] as { schemas?: Record<string, Schema> } | undefined)?.schemas ?? {});
  return name === undefined ? undefined : schemas[name];
}

/** The number of file fields (`format: binary`) of a multipart body's schema. */
function fileFieldsOf(doc: OpenApiDocument, body: RequestBody | undefined): number {
  const form = resolved(doc, body?.content?.['multipart/form-data']?.schema);
  return Object.values(form?.properties ?? {}).filter((p) => resolved(doc, p)?.format === 'binary').length;
}

/** Every operation in the document. */
export function operationsOf(doc: OpenApiDocument): DocumentedOperation[] {
  const paths = (doc.document['paths'] ?? {}) as Record<
    string,
    Record<string, { operationId?: string; security?: unknown; requestBody?: RequestBody; 'x-rate-profile'?: string; 'x-studio-role'?: string; 'x-max-upload-bytes'?: number; 'x-long-lived'?: boolean }>
  >;
  const out: DocumentedOperation[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (op?.operationId) {
        out.push({
          method,
          path,
          operationId: op.operationId,
          security: op.security ?? doc.document['security'],
          rateProfile: op['x-rate-profile'],
          studioRole: op['x-studio-role'],
          maxUploadBytes: op['x-max-upload-bytes'],
          bodyMediaTypes: Object.keys(op.requestBody?.content ?? {}).map((t) => t.toLowerCase()),
          multipartFiles: fileFieldsOf(doc, op.requestBody),
          longLived: op['x-long-lived'] === true,
        });
      }
    }
  }
  return out;
}
