/**
 * The messages of the speech WebSocket (GET /v1/audio/speech/stream), as the AsyncAPI document
 * (`openapi/asyncapi.yaml`) describes them: the client's control messages, read and checked here
 * against the document's own schemas (the document is the contract, as the OpenAPI one is for
 * HTTP), the server's messages, and the close code of a refusal.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import type { RawData } from 'ws';
import { ERROR_CATALOGUE, TtsError, type ErrorCode } from '@tts/common';
import type { AudioFormat } from '@tts/common/audio';


/** The session's settings: POST /v1/audio/speech's fields but `input`, plus the session's own. */
export interface SessionStartMessage {
  readonly type: 'session.start';
  readonly model: string;
  readonly voice: string;
  readonly response_format?: AudioFormat;
  readonly speed?: number;
  readonly instructions?: string;
  readonly sample_rate?: number;
  readonly word_timestamps?: boolean;
  /** Seconds. */
  readonly inactivity_timeout?: number;
}

/** A message of the client, checked against its schema. */
export type ClientMessage =
  | SessionStartMessage
  | { readonly type: 'text'; readonly text: string; readonly context_id?: string }
  | { readonly type: 'flush' | 'cancel'; readonly context_id?: string }
  | { readonly type: 'close'; readonly context_id?: string };

/** What a context counts. */
export interface ContextUsage {
  readonly characters: number;
  readonly characters_spoken: number;
  readonly characters_in_synthesis: number;
  readonly characters_dropped: number;
  readonly audio_seconds: number;
}

/** A JSON message of the server. */
export type ServerMessage =
  | {
      readonly type: 'session.started';
      readonly session_id: string;
      readonly voice: string;
      readonly engine: string;
      readonly response_format: AudioFormat;
      readonly content_type: string;
      readonly sample_rate: number;
      readonly word_timestamps: boolean;
      readonly max_contexts: number;
      readonly inactivity_timeout: number;
      readonly max_message_bytes: number;
    }
  | { readonly type: 'audio'; readonly context_id: string; readonly bytes: number }
  | { readonly type: 'words'; readonly context_id: string; readonly words: readonly { word: string; start: number; end: number }[] }
  | { readonly type: 'context.done'; readonly context_id: string; readonly outcome: 'completed' | 'cancelled' | 'failed'; readonly usage: ContextUsage }
  | { readonly type: 'error'; readonly code: ErrorCode; readonly message: string; readonly context_id: string | null; readonly param: string | null }
  | { readonly type: 'session.done'; readonly usage: { readonly characters: number; readonly audio_seconds: number } };

/** The `type` of every message a client may send (a record, so that the compiler checks it against ClientMessage both ways). */
const CLIENT_TYPES: Readonly<Record<ClientMessage['type'], true>> = { 'session.start': true, text: true, flush: true, cancel: true, close: true };
/** The `type` of every JSON message the server sends (audio bytes go in binary frames, each after an `audio` message). */
const SERVER_TYPES: Readonly<Record<ServerMessage['type'], true>> = { 'session.started': true, audio: true, words: true, 'context.done': true, error: true, 'session.done': true };

/** The `type` of every message a client may send; the AsyncAPI document lists exactly these. */
export const CLIENT_MESSAGE_TYPES = Object.keys(CLIENT_TYPES) as readonly ClientMessage['type'][];
/** The `type` of every JSON message the server sends; the AsyncAPI document lists exactly these. */
export const SERVER_MESSAGE_TYPES = Object.keys(SERVER_TYPES) as readonly ServerMessage['type'][];

/** The context of a message that names none. */
export const DEFAULT_CONTEXT = 'default';

type Json = Readonly<Record<string, unknown>>;

/** The payload schema's name of each message a document's `action` operations list, by the message's `type`. */
export function documentedMessageTypes(document: Json, action: 'receive' | 'send'): Map<string, string> {
  const components = (document['components'] ?? {}) as { messages?: Record<string, { payload?: { $ref?: string } }>; schemas?: Record<string, { properties?: { type?: { const?: unknown } } }> };
  const channels = (document['channels'] ?? {}) as Record<string, { messages?: Record<string, { $ref?: string }> }>;
  const operations = Object.values((document['operations'] ?? {}) as Record<string, { action?: string; messages?: { $ref?: string }[] }>);
  const out = new Map<string, string>();
  for (const op of operations.filter((o) => o.action === action)) {
    for (const ref of op.messages ?? []) {
      // #/channels/<channel>/messages/<name> -> #/components/messages/<name> -> #/components/schemas/<Schema>
      const [, channel, name] = /^#\/channels\/([^/]+)\/messages\/([^/]+)$/.exec(ref.$ref ?? '') ?? [];
      const messageRef = channels[channel ?? '']?.messages?.[name ?? '']?.$ref ?? '';
      const message = components.messages?.[/^#\/components\/messages\/(.+)$/.exec(messageRef)?.[1] ?? ''];
      const schemaName = /^#\/components\/schemas\/(.+)$/.exec(message?.payload?.$ref ?? '')?.[1];
      const type = schemaName === undefined ? undefined : components.schemas?.[schemaName]?.properties?.type?.const;
      // The binary audio frame has no JSON payload, so no type.
      if (typeof type === 'string' && schemaName !== undefined) out.set(type, schemaName);
    }
  }
  return out;
}

/** Reads the client's frames into checked messages, with the AsyncAPI document's schemas. */
export class ClientMessageReader {
  private readonly validators = new Map<string, ValidateFunction>();

  /** Throws when the document's client messages are not exactly CLIENT_MESSAGE_TYPES (a start-up check, as the handler table's). */
  constructor(document: Json) {
    const documented = documentedMessageTypes(document, 'receive');
    const known = new Set<string>(CLIENT_MESSAGE_TYPES);
    if (documented.size !== known.size || ![...documented.keys()].every((t) => known.has(t))) {
      throw new Error(`asyncapi.yaml and the speech socket disagree on the client's messages: documented [${[...documented.keys()].join(', ')}], handled [${CLIENT_MESSAGE_TYPES.join(', ')}]`);
    }
    // The document is no JSON schema at its root (strict mode would refuse its keywords); its
    // schemas are compiled by pointer, their `$ref`s resolved within it.
    const ajv = new Ajv({ strict: false, allErrors: false });
    ajv.addSchema(document as object, 'asyncapi');
    for (const [type, schema] of documented) {
      const validate = ajv.getSchema(`asyncapi#/components/schemas/${schema}`);
      if (validate === undefined) throw new Error(`asyncapi.yaml: no schema ${schema}`);
      this.validators.set(type, validate);
    }
  }

  /** The message a frame holds; throws TtsError STREAM_MESSAGE_INVALID (the session goes on). */
  read(data: RawData, isBinary: boolean): ClientMessage {
    if (isBinary) throw new TtsError('STREAM_MESSAGE_INVALID', 'Binary frames are not taken: send JSON messages as text frames.');
    const text = (Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data)).toString('utf8');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new TtsError('STREAM_MESSAGE_INVALID', 'The message is not valid JSON.');
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new TtsError('STREAM_MESSAGE_INVALID', 'A message is a JSON object with a `type`.');
    const type: unknown = (value as Json)['type'];
    const validate = typeof type === 'string' ? this.validators.get(type) : undefined;
    if (validate === undefined) {
      throw new TtsError('STREAM_MESSAGE_INVALID', `Unknown message type; a client sends ${CLIENT_MESSAGE_TYPES.join(', ')}.`, { loc: ['type'] });
    }
    if (!validate(value)) {
      const issue = validate.errors?.[0];
      const field = (issue?.instancePath ?? '').split('/').filter((p) => p !== '');
      const missing = issue?.keyword === 'required' ? String((issue.params as { missingProperty?: unknown }).missingProperty ?? '') : '';
      const loc = missing === '' ? field : [...field, missing];
      throw new TtsError('STREAM_MESSAGE_INVALID', `${type}: ${loc.join('.') || 'message'} ${issue?.message ?? 'is invalid'}.`, { loc });
    }
    return value as ClientMessage;
  }
}

/**
 * The close code of a session refused with `code`: 4000 plus the code's HTTP status (4408, 4422,
 * 4429, 4503, ...), so a client reads the class from either; an internal failure closes with 1011.
 */
export function closeCodeOf(code: ErrorCode): number {
  const http = ERROR_CATALOGUE[code].http;
  return code === 'INTERNAL_ERROR' ? 1011 : 4000 + http;
}

/** The `error` message of `error` (about `contextId`, or the session when null). */
export function errorMessageOf(error: TtsError, contextId: string | null): ServerMessage {
  const last = error.loc[error.loc.length - 1];
  // A settings field is named as the client named it (`voice`), not where HTTP would put it (body.voice).
  return { type: 'error', code: error.code, message: error.message, context_id: contextId, param: last === undefined ? null : String(last) };
}
