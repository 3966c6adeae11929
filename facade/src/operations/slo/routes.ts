/**
 * Maps a request to its documented operation ("POST /api/tts", "PATCH /api/auth/keys/{key_id}"),
 * the low-cardinality name metrics, spans and SLIs use. Built once from the OpenAPI document.
 */
import { operationsOf, type OpenApiDocument } from '../openapi-document.js';

/** A documented operation a request matched. */
export interface MatchedRoute {
  readonly operationId: string;
  /** OpenAPI path template, e.g. "/api/auth/keys/{key_id}" (semantic conventions' http.route). */
  readonly route: string;
  /** "METHOD /template", the SLI endpoint name. */
  readonly endpoint: string;
}

interface CompiledRoute extends MatchedRoute {
  readonly method: string;
  readonly pattern: RegExp;
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Matches requests against the document's operations. */
export class RouteMatcher {
  private readonly routes: CompiledRoute[];

  constructor(openapi: OpenApiDocument) {
    this.routes = operationsOf(openapi).map((op) => {
      const source = op.path
        .split(/(\{[A-Za-z0-9_]+\})/)
        .map((part) => (/^\{[A-Za-z0-9_]+\}$/.test(part) ? '[^/]+' : escape(part)))
        .join('');
      const method = op.method.toUpperCase();
      return { operationId: op.operationId, route: op.path, endpoint: `${method} ${op.path}`, method, pattern: new RegExp(`^${source}/?$`) };
    });
    // Literal paths win over templates that would also match ("/a/export" before "/a/{id}").
    this.routes.sort((a, b) => b.route.replace(/\{[^}]+\}/g, '').length - a.route.replace(/\{[^}]+\}/g, '').length);
  }

  /** The operation of `method` + `path`, or undefined for an undocumented route. */
  match(method: string, path: string): MatchedRoute | undefined {
    const m = method.toUpperCase();
    const found = this.routes.find((r) => r.method === m && r.pattern.test(path));
    return found === undefined ? undefined : { operationId: found.operationId, route: found.route, endpoint: found.endpoint };
  }

  /** Every documented endpoint name. */
  endpoints(): string[] {
    return [...new Set(this.routes.map((r) => r.endpoint))].sort();
  }
}
