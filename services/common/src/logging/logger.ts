/**
 * Structured logging shared by every process, on pino: one JSON object per line on stdout (a
 * readable, coloured form through pino-pretty when stdout is a terminal), with the process's
 * service name. Recent lines are kept in a ring buffer so the log stream endpoint can replay a
 * tail. Secrets never belong in fields: callers log ids, never keys or hashes.
 *
 * Every line also carries the fields of the current log context (`withLogFields`: the request id
 * of the request being served) and, when a span is active, its OpenTelemetry `trace_id` and
 * `span_id`, so one request can be followed across the facade, the scheduler and the nodes.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire } from 'node:module';
import { trace } from '@opentelemetry/api';
import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';

/** Severity of a log line. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** The levels, lowest first (LOG_LEVEL takes one of them). */
export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** One log record as written. */
export interface LogRecord {
  readonly time: string;
  readonly level: LogLevel;
  readonly service: string;
  readonly msg: string;
  readonly [field: string]: unknown;
}

/** Receives every record written (used by the log stream). */
export type LogListener = (record: LogRecord) => void;

/** A logger bound to a service name and base fields. */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** A logger whose lines also carry `fields`. */
  child(fields: Record<string, unknown>): Logger;
}

const ring: LogRecord[] = [];
const RING_SIZE = 1000;
const listeners = new Set<LogListener>();
let minLevel: LogLevel = 'info';
let sink: ((line: string) => void) | undefined;
let sequence = 0;
/** Fields of the line being written (pino's mixin adds them; set right before each write). */
let current: Readonly<Record<string, unknown>> = {};
const context = new AsyncLocalStorage<Readonly<Record<string, unknown>>>();

/**
 * Where pino's lines go: standard output (synchronously, so a line logged right before the process
 * exits is not lost; through pino-pretty on a terminal), or the sink a test set.
 */
function destination(): DestinationStream {
  const stdout: DestinationStream = process.stdout.isTTY
    ? // pino-pretty is only loaded for a person at a terminal; a child's stdout is a pipe.
      (createRequire(import.meta.url)('pino-pretty') as (o: object) => DestinationStream)({ sync: true, colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'seq' })
    : pino.destination({ dest: 1, sync: true });
  return {
    write(line: string): void {
      if (sink === undefined) stdout.write(line);
      else sink(line.endsWith('\n') ? line.slice(0, -1) : line);
    },
  };
}

const root: PinoLogger = pino(
  {
    level: 'debug',
    base: undefined,
    messageKey: 'msg',
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    serializers: { err: pino.stdSerializers.err },
    mixin: () => current,
  },
  destination(),
);

/**
 * Runs `fn` with `fields` (e.g. `{ request_id }`) added to every line logged inside it, including
 * in the promises and callbacks it starts. Nested calls add to the outer fields.
 */
export function withLogFields<T>(fields: Readonly<Record<string, unknown>>, fn: () => T): T {
  const outer = context.getStore();
  return context.run(outer === undefined ? fields : { ...outer, ...fields }, fn);
}

/** The fields of the current log context (empty outside `withLogFields`). */
export function logFields(): Readonly<Record<string, unknown>> {
  return context.getStore() ?? {};
}

/** Trace and span id of the active span, when there is a valid one. */
function traceFields(): { trace_id: string; span_id: string } | undefined {
  const span = trace.getActiveSpan();
  if (span === undefined) return undefined;
  const c = span.spanContext();
  return trace.isSpanContextValid(c) ? { trace_id: c.traceId, span_id: c.spanId } : undefined;
}

/** Sets the lowest level written (each process sets its validated LOG_LEVEL at start-up). @default "info" */
export function setLogLevel(level: LogLevel): void {
  minLevel = level;
}

/** Replaces where lines go (tests silence logs with `() => {}`). */
export function setLogSink(fn: (line: string) => void): void {
  sink = fn;
}

/**
 * Sequence number of the last record written by this process (0 before the first). Records carry
 * it as `seq`; the log stream uses it to send each line once.
 */
export function lastLogSequence(): number {
  return sequence;
}

/** The last `n` records written by this process, oldest first. */
export function recentLogs(n: number): LogRecord[] {
  return n <= 0 ? [] : ring.slice(-n);
}

/** Subscribes to every record written; returns the unsubscribe function. */
export function onLog(listener: LogListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function wrap(service: string, bindings: Readonly<Record<string, unknown>>, logger: PinoLogger): Logger {
  const write = (level: LogLevel, msg: string, fields?: Record<string, unknown>): void => {
    if (RANK[level] < RANK[minLevel]) return;
    current = { seq: ++sequence, ...context.getStore(), ...traceFields() };
    const f = fields ?? {};
    const record: LogRecord = {
      time: new Date().toISOString(),
      level,
      service,
      msg,
      ...current,
      ...bindings,
      ...(f['err'] === undefined ? f : { ...f, err: pino.stdSerializers.err(f['err'] as Error) }),
    };
    ring.push(record);
    if (ring.length > RING_SIZE) ring.shift();
    for (const l of listeners) l(record);
    logger[level](f, msg);
    current = {};
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    child: (fields) => wrap(service, { ...bindings, ...fields }, logger.child(fields)),
  };
}

/** Creates a logger for `service`. */
export function createLogger(service: string, base: Record<string, unknown> = {}): Logger {
  return wrap(service, base, root.child({ service, ...base }));
}
