import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TtsError } from '@tts/common';
import { EventDecoder, encodeEvent, WYOMING_VERSION, type FrameLimits } from './protocol.js';

const LIMITS: FrameLimits = { maxHeaderBytes: 256, maxDataBytes: 512, maxPayloadBytes: 1024 };

const refusal = (code: string) => (e: unknown): boolean => e instanceof TtsError && e.code === code;

describe('Wyoming event framing', () => {
  test('writes the header line with type, version and lengths, then the data and the payload', () => {
    const bytes = encodeEvent({ type: 'audio-chunk', data: { rate: 16000, width: 2, channels: 1 }, payload: Buffer.from([1, 2, 3, 4]) });
    const end = bytes.indexOf(0x0a);
    const header = JSON.parse(bytes.subarray(0, end).toString()) as Record<string, unknown>;
    const data = '{"rate":16000,"width":2,"channels":1}';
    assert.deepEqual(header, { type: 'audio-chunk', version: WYOMING_VERSION, data_length: data.length, payload_length: 4 });
    assert.equal(bytes.subarray(end + 1, end + 1 + data.length).toString(), data);
    assert.deepEqual([...bytes.subarray(end + 1 + data.length)], [1, 2, 3, 4]);
    // Without data or payload: the header line only.
    assert.equal(encodeEvent({ type: 'synthesize-stopped', data: {} }).toString(), `{"type":"synthesize-stopped","version":"${WYOMING_VERSION}"}\n`);
  });

  test('reads back what it writes, whatever the chunking, merging the data over the header\'s', () => {
    const events = [
      { type: 'describe', data: {} },
      { type: 'synthesize', data: { text: 'Héllo wörld.', voice: { name: 'flite:slt' } } },
      { type: 'audio-chunk', data: { rate: 22050, width: 2, channels: 1 }, payload: Buffer.alloc(300, 7) },
    ];
    const stream = Buffer.concat(events.map(encodeEvent));
    for (const size of [1, 3, 17, stream.length]) {
      const decoder = new EventDecoder(LIMITS);
      const got = [];
      for (let i = 0; i < stream.length; i += size) got.push(...decoder.push(stream.subarray(i, i + size)));
      assert.deepEqual(got, events, `chunks of ${size} bytes`);
    }
    const merged = new EventDecoder(LIMITS).push(Buffer.from('{"type":"synthesize","data":{"text":"a","x":1},"data_length":12}\n{"text":"b"}'));
    assert.deepEqual(merged, [{ type: 'synthesize', data: { text: 'b', x: 1 } }]);
  });

  test('refuses a header that is not a JSON object with a type, or lengths that are not byte counts', () => {
    for (const line of ['not json', '[1,2]', '{"data":{}}', '{"type":""}', '{"type":"x","data":[1]}', '{"type":"x","data_length":-1}', '{"type":"x","payload_length":"3"}', '{"type":"x","data_length":1.5}']) {
      assert.throws(() => new EventDecoder(LIMITS).push(Buffer.from(`${line}\n`)), refusal('WYOMING_EVENT_INVALID'), line);
    }
    assert.throws(() => new EventDecoder(LIMITS).push(Buffer.from('{"type":"x","data_length":4}\n[12]')), refusal('WYOMING_EVENT_INVALID'));
    assert.throws(() => new EventDecoder(LIMITS).push(Buffer.from('{"type":"x","data_length":3}\n{x}')), refusal('WYOMING_EVENT_INVALID'));
  });

  test('refuses a header line, data or payload above its cap, the header before its newline arrives', () => {
    const decoder = new EventDecoder(LIMITS);
    assert.deepEqual(decoder.push(Buffer.from(`{"type":"x","pad":"${'a'.repeat(200)}`)), []);
    assert.throws(() => decoder.push(Buffer.from('b'.repeat(100))), refusal('WYOMING_EVENT_TOO_LARGE'));
    assert.throws(() => new EventDecoder(LIMITS).push(Buffer.from('{"type":"x","data_length":513}\n')), refusal('WYOMING_EVENT_TOO_LARGE'));
    assert.throws(() => new EventDecoder(LIMITS).push(Buffer.from('{"type":"x","payload_length":1025}\n')), refusal('WYOMING_EVENT_TOO_LARGE'));
    // At the caps: accepted.
    const full = encodeEvent({ type: 'x', data: {}, payload: Buffer.alloc(1024) });
    assert.equal(new EventDecoder(LIMITS).push(full)[0]?.payload?.length, 1024);
  });
});
