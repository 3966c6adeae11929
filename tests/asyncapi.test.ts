/**
 * The AsyncAPI 3 document of the speech WebSocket (`facade/openapi/asyncapi.yaml`): it parses with
 * the AsyncAPI parser (offline) without errors, its messages are exactly those the socket's code
 * reads and sends, every schema the socket's messages refer to resolves, and its close codes follow
 * the rule the socket applies (4000 plus the HTTP status of the error's code).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { Parser } from '@asyncapi/parser';
import { parse } from 'yaml';
import { ERROR_CATALOGUE, type ErrorCode } from '@tts/common';
import { asyncApiPath, CLIENT_MESSAGE_TYPES, ClientMessageReader, closeCodeOf, documentedMessageTypes, SERVER_MESSAGE_TYPES } from '@tts/facade/testing';

const source = readFileSync(asyncApiPath(), 'utf8');
const document = parse(source) as Record<string, unknown>;

describe('asyncapi.yaml', () => {
  test('parses with @asyncapi/parser without errors', async () => {
    const { document: parsed, diagnostics } = await new Parser().parse(source);
    const errors = diagnostics.filter((d) => d.severity === 0);
    assert.deepEqual(errors.map((d) => `${d.code}: ${d.message} at ${d.path.join('.')}`), []);
    assert.ok(parsed, 'a document');
    assert.equal(parsed.version(), '3.0.0');
    // What the parser read: the client's messages under `receive`, the server's under `send`.
    const typesOf = (action: 'receive' | 'send'): string[] =>
      parsed.operations().all().filter((op) => op.action() === action).flatMap((op) => op.messages().all())
        .flatMap((m) => {
          const type = m.payload()?.properties()?.['type']?.const();
          return typeof type === 'string' ? [type] : [];
        });
    assert.deepEqual(typesOf('receive').sort(), [...CLIENT_MESSAGE_TYPES].sort());
    assert.deepEqual(typesOf('send').sort(), [...SERVER_MESSAGE_TYPES].sort());
  });

  test('every message type the socket knows is documented, and every documented one is known', () => {
    assert.deepEqual([...documentedMessageTypes(document, 'receive').keys()].sort(), [...CLIENT_MESSAGE_TYPES].sort());
    assert.deepEqual([...documentedMessageTypes(document, 'send').keys()].sort(), [...SERVER_MESSAGE_TYPES].sort());
    // The reader compiles each client message's schema (a $ref that does not resolve throws here).
    assert.doesNotThrow(() => new ClientMessageReader(document));
    // A document that loses a message is refused at start-up.
    const ops = document['operations'] as Record<string, { action: string; messages: unknown[] }>;
    const lacking = { ...document, operations: Object.fromEntries(Object.entries(ops).map(([k, v]) => [k, v.action === 'receive' ? { ...v, messages: v.messages.slice(1) } : v])) };
    assert.throws(() => new ClientMessageReader(lacking), /disagree/);
  });

  test('the close codes listed are those the socket closes with', () => {
    const listed = Object.keys((document['channels'] as Record<string, Record<string, unknown>>)['speechStream']!['x-close-codes'] as object).map(Number);
    const refusals: ErrorCode[] = ['STREAM_INACTIVITY_TIMEOUT', 'STREAM_CLIENT_TOO_SLOW', 'TTS_VOICE_NOT_FOUND', 'TTS_MODEL_NOT_FOUND', 'QUOTA_EXCEEDED', 'TTS_CONCURRENCY_LIMIT', 'TTS_OVERLOADED', 'INTERNAL_ERROR'];
    for (const code of refusals) assert.ok(listed.includes(closeCodeOf(code)), `${code} closes with ${closeCodeOf(code)}, listed`);
    assert.equal(closeCodeOf('TTS_VOICE_NOT_FOUND'), 4000 + ERROR_CATALOGUE.TTS_VOICE_NOT_FOUND.http);
    for (const code of [1000, 1001, 1009, 1011]) assert.ok(listed.includes(code));
  });
});
