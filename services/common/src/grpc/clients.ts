/**
 * gRPC clients of the platform's services, cached per address so every process keeps one HTTP/2
 * connection per peer.
 */
import { Metadata, type CallOptions, type ChannelOptions, type ClientOptions, type ClientUnaryCall, type ClientWritableStream, type ServiceError } from '@grpc/grpc-js';
import { credentialFingerprint, credentialInterceptor, type CallerCredential } from './caller-credentials.js';
import { fromServiceError } from './errors.js';
import { grpcTransportSecurity } from './tls.js';
import { clientTelemetryInterceptor } from '../telemetry/grpc.js';
import { SynthesizerClient } from '@tts/proto/synthesis';
import { SchedulerClient } from '@tts/proto/scheduler';
import { AudioAnalyzerClient, type AudioUpload, type UploadHeader } from '@tts/proto/analysis';

const CHANNEL_OPTIONS: ChannelOptions = {
  'grpc.max_receive_message_length': 64 * 1024 * 1024,
  'grpc.max_send_message_length': 64 * 1024 * 1024,
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
  // Channelz (grpc's introspection service) is not served here: its per-call bookkeeping sat on every request's path (bench/README.md, `foundation`).
  'grpc.enable_channelz': 0,
};

/**
 * Client options: the channel's, the TLS settings' (configureGrpcTls), and the interceptor that
 * carries trace context and request id.
 */
function clientOptions(): ClientOptions {
  return { ...CHANNEL_OPTIONS, ...grpcTransportSecurity().channelOptions, interceptors: [clientTelemetryInterceptor] };
}

const synthesizers = new Map<string, SynthesizerClient>();
const schedulers = new Map<string, SchedulerClient>();
const analyzers = new Map<string, AudioAnalyzerClient>();

/** The client in `cache` for `address`, created by `create` the first time. */
function cached<C>(cache: Map<string, C>, address: string, create: (address: string) => C): C {
  let c = cache.get(address);
  if (!c) {
    c = create(address);
    cache.set(address, c);
  }
  return c;
}

/**
 * The Synthesizer client for a node address (host:port), created once, with the process's transport
 * security (plaintext, or TLS once configureGrpcTls ran: configure it before the first client).
 */
export function synthesizerClient(address: string): SynthesizerClient {
  return cached(synthesizers, address, (a) => new SynthesizerClient(a, grpcTransportSecurity().channelCredentials(), clientOptions()));
}

/**
 * The Scheduler client for an address, created once per credential, with the process's transport
 * security: every call carries `credential` (the facade's internal token, a node's join token, a
 * service's API key).
 */
export function schedulerClient(address: string, credential?: CallerCredential): SchedulerClient {
  return cached(schedulers, `${address}\0${credentialFingerprint(credential)}`, () => {
    const options = clientOptions();
    const interceptors = credential === undefined ? options.interceptors : [...(options.interceptors ?? []), credentialInterceptor(credential)];
    return new SchedulerClient(address, grpcTransportSecurity().channelCredentials(), { ...options, interceptors });
  });
}

/** The AudioAnalyzer client for a node address, created once. */
export function audioAnalyzerClient(address: string): AudioAnalyzerClient {
  return cached(analyzers, address, (a) => new AudioAnalyzerClient(a, grpcTransportSecurity().channelCredentials(), clientOptions()));
}

/** Closes and forgets every cached client (shutdown and tests). */
export function closeAllClients(): void {
  for (const c of synthesizers.values()) c.close();
  for (const c of schedulers.values()) c.close();
  for (const c of analyzers.values()) c.close();
  synthesizers.clear();
  schedulers.clear();
  analyzers.clear();
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

type UploadMethod<Res> = (
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => ClientWritableStream<AudioUpload>;

/** Bytes of one upload message. */
const UPLOAD_CHUNK_BYTES = 64 * 1024;

/**
 * Calls a client-streaming upload method (tts.v1.AudioUpload): the header, then `data` in chunks
 * of at most 64 KiB, honouring the stream's back-pressure. gRPC errors reject as TtsError.
 */
export function callUpload<Res>(method: UploadMethod<Res>, header: UploadHeader, data: AsyncIterable<Uint8Array>, options: UnaryCallOptions = {}): Promise<Res> {
  return new Promise<Res>((resolve, reject) => {
    const callOptions: Partial<CallOptions> = options.timeoutMs === undefined ? {} : { deadline: deadlineIn(options.timeoutMs) };
    let settled = false;
    const call = method(options.metadata ?? new Metadata(), callOptions, (err, res) => {
      settled = true;
      options.signal?.removeEventListener('abort', onAbort);
      if (err) reject(fromServiceError(err));
      else resolve(res);
    });
    const onAbort = (): void => call.cancel();
    if (options.signal?.aborted) call.cancel();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    const send = async (message: AudioUpload): Promise<void> => {
      if (!call.write(message)) await new Promise<void>((r) => call.once('drain', () => r()));
    };
    void (async () => {
      try {
        await send({ part: { $case: 'header', value: header } });
        for await (const chunk of data) {
          for (let at = 0; at < chunk.length && !settled; at += UPLOAD_CHUNK_BYTES) {
            const piece = chunk.subarray(at, at + UPLOAD_CHUNK_BYTES);
            await send({ part: { $case: 'data', value: Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength) } });
          }
          if (settled) break; // the server answered early (e.g. refused the size)
        }
        call.end();
      } catch (err) {
        call.cancel();
        if (!settled) reject(err instanceof Error ? err : new Error(String(err)));
      }
    })();
  });
}
