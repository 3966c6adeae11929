/** The error classifier on what clients actually see: codes, bodies of every shape, statuses, free text. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyError } from './error-classifier.js';

const c = (input: Parameters<typeof classifyError>[0]) => classifyError(input) as { matched: boolean; code: string | null; category: string; retryable: boolean; http_status: number | null; source: string; what_to_do: string; catalogue_entry: { code: string } | null };

describe('error classifier', () => {
  it('places whole error bodies: ours, OpenAI-shaped, validation, gRPC', () => {
    const ours = c({ body: { code: 'TTS_VOICE_NOT_FOUND', message: 'The voice does not exist.', request_id: 'r1' } });
    assert.deepEqual([ours.code, ours.category, ours.retryable, ours.source, ours.catalogue_entry?.code], ['TTS_VOICE_NOT_FOUND', 'client_error', false, 'body', 'TTS_VOICE_NOT_FOUND']);
    const openai = c({ body: JSON.stringify({ error: { message: 'Incorrect API key provided: sk-abc.', type: 'invalid_request_error', code: 'invalid_api_key' } }) });
    assert.deepEqual([openai.code, openai.category], ['AUTH_KEY_INVALID', 'authentication']);
    const platform = c({ body: { error: { message: 'x', type: 'server_error', code: null, platform_code: 'TTS_NODE_OVERLOADED' } } });
    assert.deepEqual([platform.code, platform.retryable, platform.category], ['TTS_NODE_OVERLOADED', true, 'unavailable']);
    const openaiRate = c({ body: { error: { message: 'Rate limit reached for requests', type: 'rate_limit_error' } } });
    assert.deepEqual([openaiRate.category, openaiRate.retryable], ['rate_limit', true]);
    assert.equal(c({ body: { detail: [{ loc: ['body', 'text'], msg: 'Field required', type: 'missing' }] } }).code, 'VALIDATION_FAILED');
    const grpc = c({ body: { code: 14, details: 'No connection established', metadata: {} } });
    assert.deepEqual([grpc.category, grpc.http_status, grpc.retryable], ['unavailable', 503, true]);
  });

  it('reads codes and statuses out of free text', () => {
    assert.equal(c({ message: 'request failed: TTS_ENGINE_FAILED (engine crashed)' }).code, 'TTS_ENGINE_FAILED');
    const grpcText = c({ message: '14 UNAVAILABLE: No connection established. Last error: connect ECONNREFUSED 10.0.0.7:50061' });
    assert.deepEqual([grpcText.category, grpcText.retryable, grpcText.source], ['unavailable', true, 'message']);
    assert.equal(c({ message: 'Error: read ECONNRESET' }).category, 'unavailable');
    assert.equal(c({ message: 'rpc error: code = DeadlineExceeded desc = context deadline exceeded' }).category, 'timeout');
    const axios = c({ message: 'AxiosError: Request failed with status code 429' });
    assert.deepEqual([axios.category, axios.http_status], ['rate_limit', 429]);
    assert.equal(c({ message: 'openai.RateLimitError: Rate limit reached for tts-1' }).code, 'RATE_LIMITED');
    assert.equal(c({ body: 'upstream connect error or disconnect/reset before headers. reset reason: connection reset' }).category, 'unavailable');
  });

  it('codes and statuses given directly, OpenAI codes included', () => {
    assert.deepEqual([c({ code: 'tts_engine_failed' }).code, c({ code: 'tts_engine_failed' }).source], ['TTS_ENGINE_FAILED', 'code']);
    assert.equal(c({ code: 'model_not_found' }).code, 'TTS_MODEL_NOT_FOUND');
    assert.equal(c({ http_status: 504 }).category, 'timeout');
    assert.equal(c({ grpc_status: 'RESOURCE_EXHAUSTED' }).category, 'rate_limit');
    assert.equal(c({ grpc_status: 4 }).category, 'timeout');
  });

  it('answers input it cannot place with a best effort, never an exception', () => {
    for (const input of [{ message: 'the flux capacitor melted' }, { body: 42 }, { body: ['a'] }, { body: '' }, { code: 'NOT_A_CODE' }, { grpc_status: 'NOPE' }, { body: { unrelated: true } }]) {
      const out = c(input as Parameters<typeof classifyError>[0]);
      assert.deepEqual([out.matched, out.category, out.catalogue_entry], [false, 'unknown', null], JSON.stringify(input));
      assert.ok(out.what_to_do.length > 10);
    }
  });
});
