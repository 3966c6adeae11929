/**
 * Telemetry of every HTTP request, first in the chain after the request id:
 * - continues the caller's W3C trace (`traceparent`) or starts one, in a SERVER span named by the
 *   documented route ("POST /api/tts"); the trace id goes back in `X-Trace-Id` and in error bodies;
 * - runs the rest of the request in that trace context and with `request_id` in the log context,
 *   so every line logged while serving it (and the gRPC calls it makes) carries both;
 * - counts the request in `http.server.active_requests` while it is served (the facade
 *   autoscaler's requests-in-flight metric; long streams count for as long as they last);
 * - records `http.server.request.duration` and one SLI row for the SLO engine once the answer
 *   ends (off the response path: the row is buffered and written in batches).
 */
import { performance } from 'node:perf_hooks';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE, ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_HTTP_ROUTE } from '@opentelemetry/semantic-conventions';
import type { RequestHandler, Response } from 'express';
import { withLogFields } from '@tts/common';
import { instruments, tracer } from '@tts/common/telemetry';
import type { RouteMatcher } from '../operations/slo/routes.js';
import { CLIENT_CLOSED_STATUS, isServiceFailure, statusOfCode } from '../operations/slo/classify.js';
import type { SliInput } from '../operations/slo/service.js';
import { correlationIdOf, requestIdOf } from './request-id.js';

/** Operations whose answers are not SLIs: long-lived streams and sockets, whose duration is the client's choice. */
export const SLI_EXCLUDED_OPERATIONS: ReadonlySet<string> = new Set(['streamLogs', 'streamSpeech']);

/** The trace id of a response's request (set by requestTelemetry), or undefined without telemetry. */
export function traceIdOf(res: Response): string | undefined {
  return res.locals.traceId;
}

/** Records the catalogue code of the error a response answers (read when the SLI is recorded). */
/** Milliseconds since the facade received the request (for Server-Timing). */
export function elapsedMs(res: Response): number {
  const started = res.locals.startedAt;
  return started === undefined ? 0 : performance.now() - started;
}

export function setErrorCode(res: Response, code: string): void {
  res.locals.errorCode = code;
}

/** What the middleware reports to. */
export interface RequestTelemetryTargets {
  readonly routes: RouteMatcher;
  /** Receives one SLI per answered request of a documented operation. */
  readonly recordSli: (sli: SliInput) => void;
}

/** The log fields of a request: its id, and the client's correlation id when it sent one. */
function requestLogFields(res: Response): Record<string, string> {
  const correlationId = correlationIdOf(res);
  return { request_id: requestIdOf(res), ...(correlationId === undefined ? {} : { correlation_id: correlationId }) };
}

/** Builds the middleware. */
export function requestTelemetry(targets: RequestTelemetryTargets): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    res.locals.startedAt = started;
    const method = req.method;
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const span = tracer().startSpan(method, { kind: SpanKind.SERVER, attributes: { [ATTR_HTTP_REQUEST_METHOD]: method } }, parent);
    const spanContext = span.spanContext();
    if (trace.isSpanContextValid(spanContext)) {
      res.locals.traceId = spanContext.traceId;
      res.setHeader('X-Trace-Id', spanContext.traceId);
    }
    // The same instrument for both halves, even if the meter provider changes in between.
    const active = instruments().httpServerActiveRequests;
    active.add(1, { [ATTR_HTTP_REQUEST_METHOD]: method });
    let finished = false;
    const finish = (completed: boolean): void => {
      if (finished) return;
      finished = true;
      active.add(-1, { [ATTR_HTTP_REQUEST_METHOD]: method });
      const code = res.locals.errorCode;
      // An answer cut short is the client's doing unless the error middleware cut it (code set).
      const status = completed ? res.statusCode : statusOfCode(code, CLIENT_CLOSED_STATUS);
      const ok = !isServiceFailure(status, code);
      const seconds = (performance.now() - started) / 1000;
      const matched = targets.routes.match(method, (req.originalUrl.split('?')[0] ?? '/') || '/');
      const attributes: Record<string, string | number> = { [ATTR_HTTP_REQUEST_METHOD]: method, [ATTR_HTTP_RESPONSE_STATUS_CODE]: status };
      if (matched !== undefined) attributes[ATTR_HTTP_ROUTE] = matched.route;
      if (!ok) attributes[ATTR_ERROR_TYPE] = code ?? String(status);
      span.setAttributes(attributes);
      if (matched !== undefined) span.updateName(`${method} ${matched.route}`);
      if (!ok) span.setStatus({ code: SpanStatusCode.ERROR, ...(code === undefined ? {} : { message: code }) });
      span.end();
      instruments().httpServerDuration.record(seconds, attributes);
      if (matched !== undefined && !SLI_EXCLUDED_OPERATIONS.has(matched.operationId)) {
        targets.recordSli({ endpoint: matched.endpoint, status, ok, latencyMs: seconds * 1000, errorCode: code ?? null });
      }
    };
    res.once('finish', () => finish(true));
    res.once('close', () => finish(res.writableFinished));
    context.with(trace.setSpan(parent, span), () => withLogFields(requestLogFields(res), next));
  };
}
