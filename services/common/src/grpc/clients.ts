/**
 * gRPC clients of the platform's services, cached per address so every process keeps one HTTP/2
 * connection per peer.
 */
import { credentials, Metadata, type CallOptions, type ChannelOptions, type ClientUnaryCall, type ServiceError } from '@grpc/grpc-js';
import { fromServiceError } from './errors.js';
import { clientTelemetryInterceptor } from '../telemetry/grpc.js';
import { SynthesizerClient } from '@tts/proto/synthesis';
import { SchedulerClient } from '@tts/proto/scheduler';

const CHANNEL_OPTIONS: ChannelOptions = {
  'grpc.max_receive_message_length': 64 * 1024 * 1024,
  'grpc.max_send_message_length': 64 * 1024 * 1024,
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
  // Channelz (grpc's introspection service) is not served here; its per-call bookkeeping costs ~0.1 ms.
  'grpc.enable_channelz': 0,
};

/** Client options: the channel's, plus the interceptor that carries trace context and request id. */
const CLIENT_OPTIONS = { ...CHANNEL_OPTIONS, interceptors: [clientTelemetryInterceptor] };

const synthesizers = new Map<string, SynthesizerClient>();
const schedulers = new Map<string, SchedulerClient>();

/** The Synthesizer client for a node address (host:port), created once. */
export function synthesizerClient(address: string): SynthesizerClient {
  let c = synthesizers.get(address);
  if (!c) {
    c = new SynthesizerClient(address, credentials.createInsecure(), CLIENT_OPTIONS);
    synthesizers.set(address, c);
  }
  return c;
}

/** The Scheduler client for an address, created once. */
export function schedulerClient(address: string): SchedulerClient {
  let c = schedulers.get(address);
  if (!c) {
    c = new SchedulerClient(address, credentials.createInsecure(), CLIENT_OPTIONS);
    schedulers.set(address, c);
  }
  return c;
}

/** Closes and forgets every cached client (shutdown and tests). */
export function closeAllClients(): void {
  for (const c of synthesizers.values()) c.close();
  for (const c of schedulers.values()) c.close();
  synthesizers.clear();
  schedulers.clear();
}

/** Deadline `ms` from now, for a call's options. */
export function deadlineIn(ms: number): Date {
  return new Date(Date.now() + ms);
}

/** Options of one unary call. */
export interface UnaryCallOptions {
  /** Deadline in ms from now. */
  readonly timeoutMs?: number;
  readonly metadata?: Metadata;
  /** Cancels the call when aborted. */
  readonly signal?: AbortSignal;
}

type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => ClientUnaryCall;

/** Calls a unary method as a promise; gRPC errors reject as TtsError (catalogue codes). */
export function callUnary<Req, Res>(method: UnaryMethod<Req, Res>, request: Req, options: UnaryCallOptions = {}): Promise<Res> {
  return new Promise<Res>((resolve, reject) => {
    const callOptions: Partial<CallOptions> = options.timeoutMs === undefined ? {} : { deadline: deadlineIn(options.timeoutMs) };
    const call = method(request, options.metadata ?? new Metadata(), callOptions, (err, res) => {
      options.signal?.removeEventListener('abort', onAbort);
      if (err) reject(fromServiceError(err));
      else resolve(res);
    });
    const onAbort = (): void => call.cancel();
    if (options.signal?.aborted) call.cancel();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
  });
}
