/**
 * Span helpers over the OpenTelemetry API. Without the SDK (tests, OTEL_SDK_DISABLED) every helper
 * still runs its work and makes non-recording spans, so callers never branch on telemetry.
 */
import { context, SpanStatusCode, trace, type Attributes, type Context, type Span, type SpanOptions, type Tracer } from '@opentelemetry/api';
import { VERSION } from '../version.js';

/** Name of the tracer (instrumentation scope) of every platform span. */
export const TRACER_NAME = 'tts-platform';

/** The platform's tracer (a proxy until the SDK registers its provider). */
export function tracer(): Tracer {
  return trace.getTracer(TRACER_NAME, VERSION);
}

/** Trace id and span id of the active span, or undefined when there is none (or no SDK). */
export function activeTraceIds(ctx: Context = context.active()): { traceId: string; spanId: string } | undefined {
  const span = trace.getSpan(ctx);
  if (span === undefined) return undefined;
  const c = span.spanContext();
  return trace.isSpanContextValid(c) ? { traceId: c.traceId, spanId: c.spanId } : undefined;
}

/** Marks a span failed by `err` (records the exception, with its catalogue code when it has one). */
export function recordFailure(span: Span, err: unknown): void {
  const code = typeof err === 'object' && err !== null && typeof (err as { code?: unknown }).code === 'string' ? (err as { code: string }).code : undefined;
  if (err instanceof Error) span.recordException(err);
  span.setStatus({ code: SpanStatusCode.ERROR, ...(code === undefined ? {} : { message: code }) });
  if (code !== undefined) span.setAttribute('error.type', code);
}

/**
 * Runs `fn` inside a new child span of the active one; the span ends when `fn` settles and is
 * marked failed when it throws (the error is rethrown unchanged).
 */
export async function inSpan<T>(name: string, attributes: Attributes, fn: (span: Span) => Promise<T>, options: SpanOptions = {}): Promise<T> {
  return tracer().startActiveSpan(name, { ...options, attributes: { ...options.attributes, ...attributes } }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      recordFailure(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}
