/**
 * Telemetry of the platform's gRPC calls, at the two places every call passes: the clients made
 * by `grpc/clients.ts` (an interceptor) and the services served by `grpc/server.ts` (a wrapper of
 * each method). Together they propagate the W3C trace context (`traceparent`, `tracestate`, with
 * the propagator the SDK configured from OTEL_PROPAGATORS), the request id (`x-request-id`) and the
 * client's correlation id (`x-correlation-id`, when the request had one) in gRPC metadata, make a CLIENT and a SERVER span per call, and record `rpc.client.call.duration`
 * and `rpc.server.call.duration`.
 *
 * This is done here rather than by @opentelemetry/instrumentation-grpc because that patches
 * @grpc/grpc-js through the CommonJS loader: the platform's ES modules load it before the SDK
 * starts (and tests run every process in one), so the patch would silently miss. Liveness calls
 * (heartbeats, status polls, the facade's routing-view refresh) get metrics but no spans, so traces
 * hold requests only.
 */
import { performance } from 'node:perf_hooks';
import {
  InterceptingCall,
  status as GrpcStatus,
  type Interceptor,
  type Metadata,
  type ServerUnaryCall,
  type ServiceDefinition,
  type ServiceError,
  type UntypedHandleCall,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span, type TextMapGetter, type TextMapSetter } from '@opentelemetry/api';
import { ATTR_RPC_METHOD, ATTR_RPC_STATUS_CODE, ATTR_RPC_SYSTEM_NAME } from '@opentelemetry/semantic-conventions';
import { logFields, withLogFields } from '../logging/logger.js';
import { instruments } from './instruments.js';
import { tracer } from './tracing.js';

/** Methods (full paths) that get metrics but no spans: periodic liveness traffic. */
export const UNTRACED_METHODS: ReadonlySet<string> = new Set([
  '/tts.v1.Scheduler/RegisterNode',
  '/tts.v1.Scheduler/Heartbeat',
  // Polled by every facade a few times a second for its routing view (lookaside routing).
  '/tts.v1.Scheduler/ListNodes',
  '/tts.v1.Synthesizer/NodeStatus',
]);

/** Metadata key carrying the request id between processes. */
export const REQUEST_ID_METADATA = 'x-request-id';

/** Metadata key carrying the client's correlation id of a request between processes (log lines only). */
export const CORRELATION_ID_METADATA = 'x-correlation-id';

/** A well-formed client correlation id (1-128 of A-Za-z0-9._-); anything else is dropped. */
export const CORRELATION_ID_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;

const setter: TextMapSetter<Metadata> = {
  set: (carrier, key, value) => carrier.set(key, value),
};

const getter: TextMapGetter<Metadata> = {
  keys: (carrier) => Object.keys(carrier.getMap()),
  get: (carrier, key) => {
    const values = carrier.get(key).filter((v): v is string => typeof v === 'string');
    return values.length === 0 ? undefined : values.length === 1 ? values[0] : values;
  },
};

function statusName(code: number): string {
  return GrpcStatus[code] ?? String(code);
}

function endSpan(span: Span | undefined, code: number): void {
  if (span === undefined) return;
  span.setAttribute(ATTR_RPC_STATUS_CODE, statusName(code));
  if (code !== GrpcStatus.OK) span.setStatus({ code: SpanStatusCode.ERROR, message: statusName(code) });
  span.end();
}

/** Client interceptor: a CLIENT span, trace context and request id in the metadata, the call duration. */
export const clientTelemetryInterceptor: Interceptor = (options, nextCall) => {
  const path = options.method_definition.path;
  const method = path.slice(1);
  const parent = context.active();
  const span = UNTRACED_METHODS.has(path)
    ? undefined
    : tracer().startSpan(method, { kind: SpanKind.CLIENT, attributes: { [ATTR_RPC_SYSTEM_NAME]: 'grpc', [ATTR_RPC_METHOD]: method } }, parent);
  const requestId = logFields()['request_id'];
  const correlationId = logFields()['correlation_id'];
  const started = performance.now();
  let ended = false;
  const finish = (code: number): void => {
    if (ended) return;
    ended = true;
    endSpan(span, code);
    instruments().rpcClientDuration.record((performance.now() - started) / 1000, { [ATTR_RPC_SYSTEM_NAME]: 'grpc', [ATTR_RPC_METHOD]: method, [ATTR_RPC_STATUS_CODE]: statusName(code) });
  };
  return new InterceptingCall(nextCall(options), {
    start(metadata, _listener, next) {
      propagation.inject(span === undefined ? parent : trace.setSpan(parent, span), metadata, setter);
      if (typeof requestId === 'string' && requestId !== '' && metadata.get(REQUEST_ID_METADATA).length === 0) metadata.set(REQUEST_ID_METADATA, requestId);
      if (typeof correlationId === 'string' && correlationId !== '' && metadata.get(CORRELATION_ID_METADATA).length === 0) metadata.set(CORRELATION_ID_METADATA, correlationId);
      next(metadata, {
        onReceiveStatus(status, nextStatus) {
          finish(status.code);
          nextStatus(status);
        },
      });
    },
  });
};

interface CallScope {
  run<T>(fn: () => T): T;
  finish(code: number): void;
}

function beginServerCall(path: string, metadata: Metadata, request: unknown): CallScope {
  const method = path.slice(1);
  const started = performance.now();
  const parent = UNTRACED_METHODS.has(path) ? undefined : propagation.extract(ROOT_CONTEXT, metadata, getter);
  const span = parent === undefined
    ? undefined
    : tracer().startSpan(method, { kind: SpanKind.SERVER, attributes: { [ATTR_RPC_SYSTEM_NAME]: 'grpc', [ATTR_RPC_METHOD]: method } }, parent);
  const fromMetadata = metadata.get(REQUEST_ID_METADATA)[0];
  const fromRequest = typeof request === 'object' && request !== null ? (request as { requestId?: unknown }).requestId : undefined;
  const requestId = typeof fromMetadata === 'string' && fromMetadata !== '' ? fromMetadata : typeof fromRequest === 'string' && fromRequest !== '' ? fromRequest : undefined;
  const correlation = metadata.get(CORRELATION_ID_METADATA)[0];
  const fields = {
    ...(requestId === undefined ? {} : { request_id: requestId }),
    // Only a well-formed id (as the facade accepts one), so a caller cannot forge log lines.
    ...(typeof correlation === 'string' && CORRELATION_ID_PATTERN.test(correlation) ? { correlation_id: correlation } : {}),
  };
  let ended = false;
  return {
    run: <T>(fn: () => T): T => {
      const inContext = (): T => (span === undefined || parent === undefined ? fn() : context.with(trace.setSpan(parent, span), fn));
      return Object.keys(fields).length === 0 ? inContext() : withLogFields(fields, inContext);
    },
    finish(code) {
      if (ended) return;
      ended = true;
      endSpan(span, code);
      instruments().rpcServerDuration.record((performance.now() - started) / 1000, { [ATTR_RPC_SYSTEM_NAME]: 'grpc', [ATTR_RPC_METHOD]: method, [ATTR_RPC_STATUS_CODE]: statusName(code) });
    },
  };
}

type UnaryLike = (call: ServerUnaryCall<unknown, unknown>, callback: (err: ServiceError | null, ...rest: unknown[]) => void) => void;

interface StreamingCall {
  readonly metadata: Metadata;
  readonly request?: unknown;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
}

function codeOfError(err: unknown): number {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'number' ? code : GrpcStatus.UNKNOWN;
}

/**
 * Wraps every method of a service implementation so each call runs in the trace context (and
 * request id) its caller sent, inside a SERVER span, and records its duration.
 */
export function instrumentService(definition: ServiceDefinition, implementation: UntypedServiceImplementation): UntypedServiceImplementation {
  const wrapped: UntypedServiceImplementation = {};
  for (const [name, handler] of Object.entries(implementation)) {
    const method = definition[name];
    if (method === undefined) {
      wrapped[name] = handler;
      continue;
    }
    const path = method.path;
    if (!method.responseStream) {
      // Unary and client-streaming calls answer through a callback.
      const original = handler as unknown as UnaryLike;
      const replacement: UnaryLike = (call, callback) => {
        const scope = beginServerCall(path, call.metadata, method.requestStream ? undefined : call.request);
        scope.run(() =>
          original(call, (err, ...rest) => {
            scope.finish(err ? codeOfError(err) : GrpcStatus.OK);
            callback(err, ...rest);
          }),
        );
      };
      wrapped[name] = replacement as unknown as UntypedHandleCall;
    } else {
      // Server-streaming and bidirectional calls end with the stream.
      const original = handler as unknown as (call: StreamingCall) => void;
      const replacement = (call: StreamingCall): void => {
        const scope = beginServerCall(path, call.metadata, method.requestStream ? undefined : call.request);
        call.on('finish', () => scope.finish(GrpcStatus.OK));
        call.on('error', (err) => scope.finish(codeOfError(err)));
        call.on('cancelled', () => scope.finish(GrpcStatus.CANCELLED));
        scope.run(() => original(call));
      };
      wrapped[name] = replacement as unknown as UntypedHandleCall;
    }
  }
  return wrapped;
}
