/**
 * Health, capabilities, engines, version, quickstart, the OpenAPI export and the error catalogue.
 * The facade validates its JSON responses against the OpenAPI document in these tests, so a
 * response that drifts from the document fails here.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parse } from 'yaml';
import { ERROR_CATALOGUE } from '@tts/common';
import { startPlatform, type TestPlatform } from './support/platform.js';
import { PLATFORM_VERSION } from './support/version.js';

describe('system endpoints', () => {
  let p: TestPlatform;
  before(async () => {
    p = await startPlatform();
  });
  after(async () => {
    await p.stop();
  });

  test('GET /api/health has every seed field and reports ready', async () => {
    const res = await fetch(`${p.url}/api/health`);
    assert.equal(res.status, 200);
    const h = (await res.json()) as Record<string, unknown>;
    for (const k of ['ok', 'ready', 'ready_since', 'service', 'mode', 'model', 'startup_warmup']) assert.ok(k in h, k);
    assert.equal(h['ok'], true);
    assert.equal(h['ready'], true);
    assert.match(String(h['ready_since']), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?\+00:00$/);
    assert.equal(h['mode'], 'distributed'); // the test platform uses the real PostgreSQL and Redis
    assert.equal(h['model'], 'festival:slt');
    const warm = h['startup_warmup'] as { done: boolean; voices: string[] };
    assert.equal(warm.done, true);
    assert.ok(warm.voices.includes('festival:slt'));
  });

  test('GET /api/capabilities lists modes, voices, model, features, formats and limits', async () => {
    const c = (await (await fetch(`${p.url}/api/capabilities`)).json()) as {
      modes: string[]; voices: { id: string }[]; model: string; features: Record<string, boolean>; formats: string[]; limits: Record<string, number>; engines: string[];
    };
    assert.ok(c.modes.includes('auto'));
    assert.ok(c.voices.length >= 10);
    assert.ok(c.voices.some((v) => v.id === 'festival:slt'));
    assert.equal(c.features['streaming'], true);
    assert.deepEqual([...c.formats].sort(), ['aac', 'alaw', 'flac', 'mp3', 'opus', 'pcm', 'ulaw', 'wav']);
    assert.equal(c.limits['max_text_chars'], 10000);
    assert.deepEqual([...c.engines].sort(), ['espeak', 'festival', 'flite']);
  });

  test('GET /api/plugins/engines reports readiness per engine', async () => {
    const body = (await (await fetch(`${p.url}/api/plugins/engines`)).json()) as { engines: { name: string; ready: boolean; nodes_ready: number; voice_count: number }[] };
    for (const name of ['festival', 'flite', 'espeak']) {
      const e = body.engines.find((x) => x.name === name);
      assert.ok(e, name);
      assert.equal(e.ready, true);
      assert.equal(e.nodes_ready, 1);
      assert.ok(e.voice_count >= 1);
    }
  });

  test('GET /api/system/version reports the version of package.json', async () => {
    const v = (await (await fetch(`${p.url}/api/system/version`)).json()) as { version: string; api_version: string; openapi: string };
    assert.equal(v.version, PLATFORM_VERSION);
    assert.equal(v.api_version, PLATFORM_VERSION);
    assert.equal(v.openapi, '3.1.0');
  });

  test('GET /api/quickstart gives runnable examples for this address', async () => {
    const q = (await (await fetch(`${p.url}/api/quickstart`)).json()) as { base_url: string; examples: { curl: string; path: string }[] };
    assert.equal(q.base_url, p.url);
    assert.ok(q.examples.some((e) => e.path === '/api/tts' && e.curl.includes(`${p.url}/api/tts`)));
  });

  test('GET /api/openapi/export: JSON, YAML and download', async () => {
    const json = await fetch(`${p.url}/api/openapi/export`);
    assert.equal(json.status, 200);
    assert.match(json.headers.get('content-type') ?? '', /application\/json/);
    const doc = (await json.json()) as { openapi: string; info: { version: string }; paths: Record<string, unknown> };
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.version, PLATFORM_VERSION);
    assert.ok(doc.paths['/api/tts'] && doc.paths['/v1/audio/speech']);
    const yaml = await fetch(`${p.url}/api/openapi/export?format=yaml&download=true`);
    assert.equal(yaml.status, 200);
    assert.match(yaml.headers.get('content-disposition') ?? '', /attachment; filename="openapi.yaml"/);
    assert.deepEqual(parse(await yaml.text()), doc);
    const bad = await fetch(`${p.url}/api/openapi/export?format=xml`);
    assert.equal(bad.status, 422);
    const body = (await bad.json()) as { detail: { loc: string[] }[] };
    assert.deepEqual(body.detail[0]?.loc, ['query', 'format']);
    const unknown = await fetch(`${p.url}/api/openapi/export?colour=blue`);
    assert.equal(unknown.status, 422);
  });

  test('GET /api/errors/docs serves exactly the catalogue', async () => {
    const body = (await (await fetch(`${p.url}/api/errors/docs`)).json()) as { errors: { code: string; http_status: number; grpc_status: string }[] };
    assert.deepEqual(body.errors.map((e) => e.code).sort(), Object.keys(ERROR_CATALOGUE).sort());
    for (const e of body.errors) {
      assert.equal(e.http_status, ERROR_CATALOGUE[e.code as keyof typeof ERROR_CATALOGUE].http);
      assert.equal(e.grpc_status, ERROR_CATALOGUE[e.code as keyof typeof ERROR_CATALOGUE].grpc);
    }
    assert.equal(body.errors.find((e) => e.code === 'TTS_VOICE_NOT_FOUND')?.grpc_status, 'INVALID_ARGUMENT');
  });

  test('POST /api/errors/classify places codes and statuses', async () => {
    const byCode = (await (await p.post(`/api/errors/classify`, { code: 'TTS_ENGINE_FAILED' })).json()) as { matched: boolean; retryable: boolean; category: string };
    assert.deepEqual([byCode.matched, byCode.retryable, byCode.category], [true, true, 'unavailable']);
    const byStatus = (await (await p.post(`/api/errors/classify`, { http_status: 429 })).json()) as { category: string; retryable: boolean };
    assert.deepEqual([byStatus.category, byStatus.retryable], ['rate_limit', true]);
    const byGrpc = (await (await p.post(`/api/errors/classify`, { grpc_status: 'DEADLINE_EXCEEDED' })).json()) as { category: string };
    assert.equal(byGrpc.category, 'timeout');
    const empty = await p.post(`/api/errors/classify`, {});
    assert.equal(empty.status, 422);
    // A body our own API answered, fed back as a client saw it.
    const seen = await p.post('/api/tts', { text: 'Hi.', voice: 'nobody:here' });
    const fromBody = (await (await p.post(`/api/errors/classify`, { body: await seen.json() })).json()) as { code: string; source: string; catalogue_entry: { http_status: number } | null };
    assert.deepEqual([fromBody.code, fromBody.source, fromBody.catalogue_entry?.http_status], ['TTS_VOICE_NOT_FOUND', 'body', 422]);
    const text = (await (await p.post(`/api/errors/classify`, { message: 'Error: 14 UNAVAILABLE: No connection established' })).json()) as { category: string; retryable: boolean; what_to_do: string };
    assert.deepEqual([text.category, text.retryable], ['unavailable', true]);
    const unknown = await p.post(`/api/errors/classify`, { message: 'the flux capacitor melted' });
    assert.equal(unknown.status, 200);
    assert.equal(((await unknown.json()) as { category: string }).category, 'unknown');
  });
});
