/** The OpenAPI document states the same request limits the processes enforce (one definition each in @tts/common). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OPENAI_MAX_INPUT_CHARS, SAMPLE_RATE_RANGE, SPEED_RANGE, VERSION } from '@tts/common';
import { loadOpenApiDocument } from './openapi-document.js';

type Props = Record<string, { minimum?: number; maximum?: number; maxLength?: number }>;

describe('request limits in the OpenAPI document', () => {
  const doc = loadOpenApiDocument().document as { info: { version: string }; components: { schemas: Record<string, { properties: Props }> } };
  const props = (schema: string): Props => doc.components.schemas[schema]!.properties;

  it('speed and sample rate bounds of every speech body match @tts/common', () => {
    for (const schema of ['TtsRequest', 'SpeechRequest']) {
      assert.deepEqual([props(schema)['speed']?.minimum, props(schema)['speed']?.maximum], [SPEED_RANGE.min, SPEED_RANGE.max], schema);
      assert.deepEqual([props(schema)['sample_rate']?.minimum, props(schema)['sample_rate']?.maximum], [SAMPLE_RATE_RANGE.min, SAMPLE_RATE_RANGE.max], schema);
    }
  });

  it("OpenAI's input limit matches, and the served document carries the platform version", () => {
    assert.equal(props('SpeechRequest')['input']?.maxLength, OPENAI_MAX_INPUT_CHARS);
    assert.equal(doc.info.version, VERSION);
    assert.match(VERSION, /^\d+\.\d+\.\d+/);
  });
});
