/**
 * Fuzzing of the speech WebSocket from its AsyncAPI document (issue 31): fast-check draws message
 * sequences from the document's client message schemas (valid messages, messages that break them,
 * garbage text and binary frames) and sends them to a real platform's socket. Properties: the
 * process never fails, every answer is a documented server message (validated against its schema
 * in the document), every binary frame is announced by an `audio` message of its length, every
 * error carries a catalogue code, the socket closes with a documented code, and no session is left
 * on the node.
 *
 * A fixed seed (FUZZ_SEED, printed) and bounded runs (FUZZ_RUNS) keep it repeatable.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { Ajv, type ValidateFunction } from 'ajv';
import fc, { type Arbitrary } from 'fast-check';
import { parse } from 'yaml';
import { ERROR_CATALOGUE, isErrorCode } from '@tts/common';
import { asyncApiPath, documentedMessageTypes } from '@tts/facade/testing';
import { startPlatform, waitFor, type TestPlatform } from './support/platform.js';
import { hostileString, mutantArb, validArb, type Schema } from './support/openapi-fuzz.js';
import { SpeechSocket, speechSocketUrl } from './support/speech-socket.js';

const SEED = Number(process.env['FUZZ_SEED'] ?? 20_261_129);
const RUNS = Number(process.env['FUZZ_RUNS'] ?? 24);

const doc = parse(readFileSync(asyncApiPath(), 'utf8')) as Schema;
const schemas = (doc['components'] as { schemas: Record<string, Schema> }).schemas;
const clientTypes = documentedMessageTypes(doc, 'receive');
const serverTypes = documentedMessageTypes(doc, 'send');
const closeCodes = Object.keys((doc['channels'] as Record<string, Record<string, unknown>>)['speechStream']!['x-close-codes'] as object).map(Number);

/** One frame the fuzzer sends. */
type Sent = { readonly kind: 'json'; readonly value: unknown } | { readonly kind: 'text'; readonly text: string } | { readonly kind: 'binary'; readonly bytes: Uint8Array };

/** A few context ids, so that messages meet the contexts earlier ones opened. */
const contextId = fc.constantFrom('default', 'a', 'b', 'c', 'd', 'e', 'f');

/** A message of `type` drawn from its schema; context ids mostly from the small set. */
function messageArb(type: string): Arbitrary<unknown> {
  const schema = schemas[clientTypes.get(type)!]!;
  return fc.tuple(validArb(doc, schema), fc.option(contextId, { nil: undefined })).map(([v, id]) => (id === undefined || type === 'session.start' ? v : { ...(v as object), context_id: id }));
}

/** Settings that open a session (the voice and model of the test platform), with the rest drawn from the schema. */
const goodStart = messageArb('session.start').map((v) => ({ ...(v as object), model: 'tts-1', voice: 'flite:slt', inactivity_timeout: 5 }));

const sentArb: Arbitrary<Sent> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('text', 'flush', 'cancel', 'close').chain(messageArb).map((value) => ({ kind: 'json' as const, value })) },
  { weight: 2, arbitrary: fc.constantFrom(...clientTypes.keys()).chain((t) => mutantArb(doc, schemas[clientTypes.get(t)!]!)).map((value) => ({ kind: 'json' as const, value })) },
  { weight: 1, arbitrary: hostileString.filter((t) => Buffer.byteLength(t) < 60_000).map((text) => ({ kind: 'text' as const, text })) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 256 }).map((bytes) => ({ kind: 'binary' as const, bytes })) },
);

/** A session: settings (mostly good ones) and up to 12 frames. */
const sequenceArb = fc.record({
  start: fc.oneof({ weight: 4, arbitrary: goodStart }, { weight: 1, arbitrary: messageArb('session.start') }, { weight: 1, arbitrary: mutantArb(doc, schemas['SessionStart']!) }),
  frames: fc.array(sentArb, { maxLength: 12 }),
});

describe('fuzzing the speech WebSocket from its AsyncAPI document', { timeout: 600_000 }, () => {
  let p: TestPlatform;
  const validators = new Map<string, ValidateFunction>();

  before(async () => {
    p = await startPlatform({ node: { engines: ['flite'], defaultVoice: 'flite:slt', fliteWorkers: 1 }, facade: { defaultVoice: 'flite:slt' } });
    const ajv = new Ajv({ strict: false });
    ajv.addSchema(doc as object, 'asyncapi');
    for (const [type, schema] of serverTypes) validators.set(type, ajv.getSchema(`asyncapi#/components/schemas/${schema}`)!);
  });

  after(async () => {
    await p.stop();
  });

  test('every answer is a documented message, every close a documented code, no session left behind', async () => {
    console.log(`fuzz-speech-socket: seed ${SEED}, ${RUNS} runs`);
    const seen = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(sequenceArb, async ({ start, frames }) => {
        const s = await SpeechSocket.open(speechSocketUrl(p.url), { 'x-api-key': p.apiKey });
        s.send(start);
        for (const f of frames) {
          if (s.closed) break;
          if (f.kind === 'json') s.send(f.value);
          else if (f.kind === 'text') s.ws.send(f.text);
          else s.ws.send(f.bytes, { binary: true });
        }
        if (!s.closed) s.send({ type: 'close' });
        const closed = await s.untilClosed(60_000);
        // A refusal closes with 4000 plus its error's HTTP status (the document's rule); the codes it lists are the usual ones.
        const last = s.messages('error').at(-1);
        const ruled = last !== undefined && isErrorCode(last['code']) && closed.code === 4000 + ERROR_CATALOGUE[last['code']].http;
        assert.ok(closeCodes.includes(closed.code) || ruled, `close code ${closed.code} is documented`);
        s.frames.forEach((f, i) => {
          if (f.kind === 'binary') {
            const before = s.frames[i - 1];
            assert.ok(before?.kind === 'json' && before.message['type'] === 'audio' && before.message['bytes'] === f.data.length, `binary frame ${i} announced by its audio message`);
            return;
          }
          const type = String(f.message['type']);
          seen.set(type, (seen.get(type) ?? 0) + 1);
          const validate = validators.get(type);
          assert.ok(validate, `message type ${type} is documented`);
          assert.ok(validate(f.message), `${type} matches its schema: ${JSON.stringify(validate.errors)} in ${JSON.stringify(f.message).slice(0, 300)}`);
          if (type === 'error') assert.ok(isErrorCode(f.message['code']), `${String(f.message['code'])} is a catalogue code`);
        });
        if (closed.code >= 4000 && last !== undefined && isErrorCode(last['code'])) assert.equal(closed.code, 4000 + ERROR_CATALOGUE[last['code']].http);
        await waitFor(() => p.nodes[0]!.context.admission.sessions() === 0, 10_000, 'the node\'s sessions back to 0');
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    console.log(`fuzz-speech-socket: messages answered ${JSON.stringify(Object.fromEntries(seen))}`);
    assert.ok((seen.get('session.started') ?? 0) > 0 && (seen.get('error') ?? 0) > 0, 'sessions started and errors answered');
  });
});
