import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '@tts/common';
import { loadOpenApiDocument } from '../openapi-document.js';
import { isServiceFailure } from './classify.js';
import { DEFAULT_OBJECTIVES, objectiveFor, parseObjectives } from './objectives.js';
import { RouteMatcher } from './routes.js';

describe('SLO objectives', () => {
  it('defaults to 99.9 % and p95 1 s, 5 s for synthesis', () => {
    const o = parseObjectives(undefined);
    assert.equal(o, DEFAULT_OBJECTIVES);
    assert.deepEqual(objectiveFor(o, 'GET /api/health'), { availability: 0.999, latencyP95Ms: 1000 });
    assert.deepEqual(objectiveFor(o, 'POST /api/tts'), { availability: 0.999, latencyP95Ms: 5000 });
  });

  it('reads TTS_SLO_OBJECTIVES; endpoint entries start from the top level', () => {
    const o = parseObjectives('{"availability":0.99,"latency_p95_ms":800,"endpoints":{"POST /api/tts":{"latency_p95_ms":3000}},"min_requests":20}');
    assert.deepEqual(o.default, { availability: 0.99, latencyP95Ms: 800 });
    assert.deepEqual(objectiveFor(o, 'POST /api/tts'), { availability: 0.99, latencyP95Ms: 3000 });
    assert.equal(o.minRequests, 20);
  });

  it('refuses bad settings, naming the variable', () => {
    for (const raw of ['not json', '[]', '{"availability":1}', '{"availability":0}', '{"latency_p95_ms":-1}', '{"endpoints":{"api/tts":{}}}', '{"min_requests":0}', '{"avail":0.9}', '{"endpoints":{"POST /x":{"p99":1}}}']) {
      assert.throws(() => parseObjectives(raw), (err: unknown) => err instanceof ConfigError && err.variable === 'TTS_SLO_OBJECTIVES', raw);
    }
  });
});

describe('SLI classification', () => {
  it('server failures and overload count against availability; client errors, rate limits and quotas do not', () => {
    assert.equal(isServiceFailure(200, undefined), false);
    assert.equal(isServiceFailure(422, 'VALIDATION_FAILED'), false);
    assert.equal(isServiceFailure(499, 'TTS_CANCELLED'), false);
    assert.equal(isServiceFailure(429, 'RATE_LIMITED'), false);
    assert.equal(isServiceFailure(429, 'QUOTA_EXCEEDED'), false);
    assert.equal(isServiceFailure(429, 'TTS_NODE_OVERLOADED'), true);
    assert.equal(isServiceFailure(503, 'TTS_NODE_OVERLOADED'), true);
    assert.equal(isServiceFailure(500, 'INTERNAL_ERROR'), true);
    assert.equal(isServiceFailure(504, undefined), true);
  });

  it('names a request by its documented operation', () => {
    const routes = new RouteMatcher(loadOpenApiDocument());
    assert.deepEqual(routes.match('POST', '/api/tts'), { operationId: 'ttsSynthesize', route: '/api/tts', endpoint: 'POST /api/tts' });
    assert.equal(routes.match('PATCH', '/api/auth/keys/abc123')?.endpoint, 'PATCH /api/auth/keys/{key_id}');
    assert.equal(routes.match('GET', '/api/system/cleanup/config')?.operationId, 'getCleanupConfig');
    assert.equal(routes.match('GET', '/api/tts'), undefined);
    assert.equal(routes.match('GET', '/nowhere'), undefined);
    assert.ok(routes.endpoints().includes('GET /api/slo/dashboard'));
  });
});
