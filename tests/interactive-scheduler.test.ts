/**
 * Interactive sessions through the scheduler (issue 31, item 1): internal callers open them with
 * the same credentials as their other calls (docs/internal-callers.md). A real scheduler with an
 * internal token on the real PostgreSQL (the facade's credentials view) and two real in-process
 * nodes (flite): a call without a credential is refused; an API key's session runs as the key's
 * own tenant whatever it claims, on one node for its whole life, the documented example gets its
 * audio and word timings; a session goes to a node with a free session place.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { credentials, Metadata } from '@grpc/grpc-js';
import { SchedulerClient } from '@tts/proto/scheduler';
import { closeAllClients, credentialInterceptor, type CallerCredential } from '@tts/common';
import { ApiKeyRepository, ApiKeyService, FACADE_MIGRATIONS } from '@tts/facade/testing';
import { start, type RunningScheduler } from '@tts/scheduler';
import { openJobStorage, waitUntil, type JobStorage } from '@tts/scheduler/testing';
import { start as startNode, type RunningNode } from '@tts/inference-node';
import { speakInteractively } from '../docs/examples/interactive-caller.js';
import { sessionSpeech, SessionClient } from './support/interactive.js';
import './support/test-logs.js';

const INTERNAL = randomBytes(24).toString('base64url');

describe('interactive sessions through the scheduler', { timeout: 240_000 }, () => {
  let storage: JobStorage;
  let dataDir: string;
  let scheduler: RunningScheduler;
  /** `small` admits one session, `large` four. */
  let small: RunningNode;
  let large: RunningNode;
  let apiKey: string;
  let keyId: string;
  const clients: SchedulerClient[] = [];
  const sessions: SessionClient[] = [];

  const sessionAs = (credential?: CallerCredential): SessionClient => {
    const client = new SchedulerClient(scheduler.address, credentials.createInsecure(), credential ? { interceptors: [credentialInterceptor(credential)] } : {});
    clients.push(client);
    const s = new SessionClient(client.synthesizeInteractive(new Metadata()));
    sessions.push(s);
    return s;
  };

  before(async () => {
    storage = await openJobStorage();
    // The facade's tables in the same schema: the scheduler checks API keys through its view.
    await storage.database.migrate(FACADE_MIGRATIONS);
    const created = await new ApiKeyService({ repository: new ApiKeyRepository(storage.database) }).create({ name: 'interactive caller', tier: 'pro' });
    apiKey = created.apiKey;
    keyId = created.record.keyId;
    dataDir = await mkdtemp(join(tmpdir(), 'tts-interactive-scheduler-'));
    scheduler = await start({ host: '127.0.0.1', port: 0, dataDir, database: storage.database, kv: storage.kv, heartbeatMs: 200, schedulerId: 'interactive-test', internalToken: INTERNAL, staticNodes: [] });
    const node = (id: string, maxSessions: number): Promise<RunningNode> =>
      startNode({ host: '127.0.0.1', port: 0, nodeId: `${id}-${process.pid}`, engines: ['flite'], defaultVoice: 'flite:slt', fliteWorkers: 1, maxSessions, warmup: false, schedulerAddress: scheduler.address, heartbeatMs: 200, dataDir });
    [small, large] = await Promise.all([node('small', 1), node('large', 4)]);
    await waitUntil(() => scheduler.context.membership.ready().length === 2, 10_000, 'both nodes ready');
  });

  after(async () => {
    for (const s of sessions) s.call.cancel();
    for (const c of clients) c.close();
    await Promise.all([small?.stop(1000), large?.stop(1000)]);
    await scheduler?.stop(1000);
    closeAllClients();
    await storage?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  test('a call without a valid credential is refused', async () => {
    const none = sessionAs();
    none.start();
    assert.equal((await none.closed())?.code, 'GRPC_CALLER_UNAUTHENTICATED');
    const wrong = sessionAs({ kind: 'api_key', apiKey: `tts_${'a'.repeat(16)}_${'B'.repeat(40)}` });
    wrong.start();
    assert.equal((await wrong.closed())?.code, 'GRPC_CALLER_UNAUTHENTICATED');
    assert.equal(small.context.admission.sessions() + large.context.admission.sessions(), 0, 'no session was opened');
  });

  test('the documented example: an API key streams text two words at a time and gets audio and word timings', async () => {
    const text = 'Hello from an internal service, streaming its answer as it is written.';
    const spoken = await speakInteractively(scheduler.address, apiKey, text);
    assert.deepEqual(spoken.errors, []);
    assert.equal(spoken.final.outcome, 'CONTEXT_OUTCOME_COMPLETED');
    assert.equal(spoken.final.characters_spoken, text.length);
    assert.ok([small.nodeId, large.nodeId].includes(spoken.nodeId));
    assert.ok(spoken.audio.length / 2 / 16000 > 2, `${spoken.audio.length} bytes of 16 kHz PCM`);
    assert.deepEqual(spoken.words.map((w) => w.word.replace(/[^a-z]/gi, '').toLowerCase()), text.split(' ').map((w) => w.replace(/[^a-z]/gi, '').toLowerCase()));
  });

  test('an API key\'s session is its own tenant, on one node for its life', async () => {
    const s = sessionAs({ kind: 'api_key', apiKey });
    s.start(sessionSpeech(), { tenantId: 'someone-else' });
    await s.until((r) => r.some((m) => m.message.$case === 'started'), 'started');
    const started = s.received.find((m) => m.message.$case === 'started')!.message;
    const nodeId = started.$case === 'started' ? started.value.nodeId : '';
    const node = nodeId === small.nodeId ? small : large;
    const other = node === small ? large : small;
    // Text held by the session counts in its node's load under the key's tenant.
    s.text('t', 'Text that waits for the end of its sentence');
    await waitUntil(() => (node.context.admission.engineLoad('flite')?.tenants ?? []).some((t) => t.tenantId === keyId), 2000, 'the key\'s tenant in the load');
    assert.ok(!(node.context.admission.engineLoad('flite')?.tenants ?? []).some((t) => t.tenantId === 'someone-else'));
    for (let i = 0; i < 3; i++) {
      s.text('t', ` and more, part ${i}.`);
      s.flush('t');
    }
    s.end('t');
    await s.until(s.hasFinal('t'), 'the final message');
    assert.equal(node.context.admission.sessions(), 1, 'the session is on the node it started on');
    assert.equal(other.context.admission.sessions(), 0);
    assert.ok(s.bytes('t').length > 10_000);
    s.call.end();
    assert.equal(await s.closed(), undefined);
  });

  test('a session goes to a node with a free session place', async () => {
    // Fill the small node's one place, on the node itself.
    await waitUntil(() => small.context.admission.sessions() === 0 && large.context.admission.sessions() === 0, 5000, 'earlier sessions closed');
    const filler = new SessionClient(new (await import('@tts/proto/synthesis')).SynthesizerClient(small.address, credentials.createInsecure()).synthesizeInteractive());
    sessions.push(filler);
    filler.start();
    await filler.until((r) => r.some((m) => m.message.$case === 'started'), 'the small node\'s session');
    await waitUntil(() => scheduler.context.membership.ready().some((e) => e.status.nodeId === small.nodeId && e.status.sessions === 1), 5000, 'the scheduler to see the small node full');
    for (let i = 0; i < 3; i++) {
      const s = sessionAs({ kind: 'internal', token: INTERNAL });
      s.start(sessionSpeech(), { tenantId: `platform-tenant-${i}` });
      await s.until((r) => r.some((m) => m.message.$case === 'started'), 'started');
      const started = s.received.find((m) => m.message.$case === 'started')!.message;
      assert.equal(started.$case === 'started' && started.value.nodeId, large.nodeId, `session ${i} on the node with places`);
      s.call.end();
      await s.closed();
    }
    filler.call.end();
    await filler.closed();
  });
});
