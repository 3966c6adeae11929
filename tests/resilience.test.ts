/**
 * Failure behaviour: engine crashes, client cancellation, deadlines, node loss and failover.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { callUnary, synthesizerClient } from '@tts/common';
import { festivalServers, type FestivalEngine } from '@tts/inference-node/testing';
import { startPlatform, waitFor, type TestPlatform } from './support/platform.js';

const LONG = Array.from({ length: 40 }, (_, i) => `This is sentence number ${i + 1} of a long text that keeps the engine busy for a while.`).join(' ');

describe('engine crash and recovery', () => {
  let p: TestPlatform;
  before(async () => {
    p = await startPlatform();
  });
  after(async () => {
    await p.stop();
  });

  test('killing a festival server mid-request fails that request with a retryable code; the next succeeds', async () => {
    const festival = p.nodes[0]!.context.registry.resolve('festival:slt').engine as FestivalEngine;
    const request = p.post(`/api/tts`, { text: LONG, voice: 'festival:slt' });
    await waitFor(() => {
      const busy = festivalServers(festival).filter((s) => s.busy);
      for (const s of busy) process.kill(s.pid, 'SIGKILL');
      return busy.length > 0;
    }, 10_000, 'a busy festival server');
    const res = await request;
    assert.equal(res.status, 503);
    assert.ok(Number(res.headers.get('retry-after')) >= 1);
    const body = (await res.json()) as { code: string };
    assert.equal(body.code, 'TTS_ENGINE_FAILED');
    const next = await p.post(`/api/tts`, { text: 'Back again.', voice: 'festival:slt' });
    assert.equal(next.status, 200);
  });
});

describe('client cancellation', () => {
  let p: TestPlatform;
  before(async () => {
    // The default deadline: on a busy machine the first chunk may take longer than the short
    // deadline of the tests below, and this test is about the client hanging up, not the deadline.
    p = await startPlatform({ facade: { admission: false } });
  });
  after(async () => {
    await p.stop();
  });

  test('a client that disconnects stops the work on the node', async () => {
    const node = p.nodes[0]!;
    const res = await p.post(`/v1/audio/speech`, { model: 'tts-1', input: LONG.slice(0, 4000), voice: 'festival:slt', response_format: 'pcm' }, {});
    // read one chunk, then hang up
    const reader = res.body!.getReader();
    await reader.read();
    await reader.cancel();
    await waitFor(() => node.context.admission.inFlight() === 0 && node.context.admission.queueDepth() === 0 && node.context.admission.queuedWorkSeconds() === 0, 5000, 'node idle after cancel');
  });
});

describe('cancellation and deadlines', () => {
  let p: TestPlatform;
  before(async () => {
    // Admission off: these requests are meant to run into the deadline, not to be refused before it
    // (tests/admission.test.ts covers the refusals).
    p = await startPlatform({ facade: { requestTimeoutMs: 1500, admission: false } });
  });
  after(async () => {
    await p.stop();
  });

  test('a request past its deadline answers 504 and the node frees its slot', async () => {
    const res = await p.post(`/api/tts`, { text: LONG, voice: 'festival:slt' });
    assert.equal(res.status, 504);
    assert.equal(((await res.json()) as { code: string }).code, 'TTS_DEADLINE_EXCEEDED');
    const node = p.nodes[0]!;
    await waitFor(() => node.context.admission.inFlight() === 0 && node.context.admission.queuedWorkSeconds() === 0, 8000, 'node idle after deadline');
  });
});

describe('several nodes', () => {
  let p: TestPlatform;
  before(async () => {
    p = await startPlatform({ nodes: 2 });
  });
  after(async () => {
    await p.stop();
  });

  test('requests spread over both nodes', async () => {
    const seen = new Set<string>();
    await Promise.all(
      // 10 at once: the test key's tier (pro) may have 10 syntheses in flight (TTS_TIER_CONCURRENCY).
      Array.from({ length: 10 }, async () => {
        const res = await p.post(`/api/tts`, { text: 'Spread the load across the nodes, please.', voice: 'flite:slt' });
        assert.equal(res.status, 200);
        seen.add(res.headers.get('x-tts-node') ?? '');
      }),
    );
    assert.equal(seen.size, 2, [...seen].join(','));
  });

  test('a stopped node leaves the rotation and requests keep succeeding', async () => {
    const [first, second] = p.nodes;
    await first!.stop(2000);
    for (let i = 0; i < 4; i++) {
      const res = await p.post(`/api/tts`, { text: 'Still answering.', voice: 'flite:slt' });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('x-tts-node'), second!.nodeId);
    }
  });

  test('NodeStatus reports load, engines, capacity and measured speed', async () => {
    const node = p.nodes[1]!;
    const client = synthesizerClient(node.address);
    const s = await callUnary(client.nodeStatus.bind(client), {});
    assert.equal(s.nodeId, node.nodeId);
    assert.ok(s.capacity >= 3);
    assert.ok(s.realTimeFactor > 0 && s.realTimeFactor < 1);
    assert.ok(s.secondsPerChar > 0);
    assert.ok(s.engines.some((e) => e.name === 'flite' && e.ready));
    assert.ok(s.warmup?.done);
  });
});
