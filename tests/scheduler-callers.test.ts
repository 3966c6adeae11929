/**
 * Who may call the scheduler (issue 15, item 4, caller authentication): an in-process scheduler
 * with an internal token and a node join token, on the real PostgreSQL and Redis, and a real node
 * process. Calls without a valid credential are refused; the platform credential states a job's
 * owner; an API key (made by the facade, checked through the credentials view it publishes)
 * submits only as its own owner and tier and sees no one else's jobs through GetJob, ListJobs,
 * ListJobEvents, WatchJob, CancelJob or ReadJobAudio; nodes register only with the join token;
 * beyond loopback both tokens are required.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { JobOwnerKind, JobState, SchedulerClient, type Job } from '@tts/proto/scheduler';
import { credentials } from '@grpc/grpc-js';
import { NodeStatusReport } from '@tts/proto/synthesis';
import { callUnary, closeAllClients, ConfigError, credentialInterceptor, schedulerClient, setLogSink, TtsError, type CallerCredential } from '@tts/common';
import { ApiKeyRepository, ApiKeyService, FACADE_MIGRATIONS } from '@tts/facade/testing';
import { checkCallerCredentials, loadSchedulerConfig, start, type RunningScheduler } from '@tts/scheduler';
import { jobSpec, openJobStorage, pollJobEvents, readJobAudio, startNodeProcess, waitUntil, watchJobEvents, type JobStorage, type ServiceProcess } from '@tts/scheduler/testing';

import { speakAsJob } from '../docs/examples/internal-caller.js';

if (process.env['TEST_LOGS'] !== '1') setLogSink(() => undefined);

const INTERNAL = randomBytes(24).toString('base64url');
const JOIN = randomBytes(24).toString('base64url');

async function rejectsWith(p: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof TtsError, `expected ${code}, got ${String(e)}`);
    assert.equal(e.code, code);
    return true;
  });
}

/** An API key made by the facade's key service, in the schema the facade and the scheduler share. */
async function insertKey(storage: JobStorage, tier: string, disabled = false): Promise<{ keyId: string; apiKey: string }> {
  const keys = new ApiKeyService({ repository: new ApiKeyRepository(storage.database) });
  const created = await keys.create({ name: 'grpc caller', tier });
  if (disabled) await keys.update(created.record.keyId, { disabled: true });
  return { keyId: created.record.keyId, apiKey: created.apiKey };
}

describe('scheduler callers', () => {
  let storage: JobStorage;
  let dataDir: string;
  let scheduler: RunningScheduler;
  let node: ServiceProcess;
  const clientWith = (credential?: CallerCredential): SchedulerClient => schedulerClient(scheduler.address, credential);
  let platform: SchedulerClient;

  before(async () => {
    storage = await openJobStorage();
    // The facade's tables in the same schema, as on a platform where both share one database.
    await storage.database.migrate(FACADE_MIGRATIONS);
    dataDir = await mkdtemp(join(tmpdir(), 'tts-callers-'));
    scheduler = await start({
      host: '127.0.0.1',
      port: 0,
      dataDir,
      database: storage.database,
      kv: storage.kv,
      heartbeatMs: 200,
      schedulerId: 'callers-test',
      internalToken: INTERNAL,
      nodeJoinToken: JOIN,
    });
    platform = clientWith({ kind: 'internal', token: INTERNAL });
    node = await startNodeProcess({ nodeId: 'callers-node', schedulerAddress: scheduler.address, env: { TTS_NODE_JOIN_TOKEN: JOIN } });
    await waitUntil(async () => (await callUnary(platform.getQueueStats.bind(platform), {})).nodesReady === 1, 10_000, 'node ready');
  });

  after(async () => {
    await node?.stop();
    await scheduler?.stop(1000);
    closeAllClients();
    await storage?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const submit = (client: SchedulerClient, owner: { ownerId?: string; ownerKind?: JobOwnerKind; tier?: string } = {}): Promise<Job> =>
    callUnary(client.submitJob.bind(client), {
      spec: jobSpec('A job for the caller tests.'),
      ownerId: owner.ownerId ?? '',
      ownerKind: owner.ownerKind ?? JobOwnerKind.JOB_OWNER_KIND_UNSPECIFIED,
      tier: owner.tier ?? '',
      requestId: '',
    }).then((r) => r.job!);

  test('calls without a valid credential are refused', async () => {
    await rejectsWith(callUnary(clientWith().getQueueStats.bind(clientWith()), {}), 'GRPC_CALLER_UNAUTHENTICATED');
    const wrong = clientWith({ kind: 'internal', token: 'x'.repeat(32) });
    await rejectsWith(callUnary(wrong.getQueueStats.bind(wrong), {}), 'GRPC_CALLER_UNAUTHENTICATED');
    await rejectsWith(submit(wrong, { ownerId: 'someone', ownerKind: JobOwnerKind.JOB_OWNER_KIND_API_KEY, tier: 'enterprise' }), 'GRPC_CALLER_UNAUTHENTICATED');
    const forged = clientWith({ kind: 'api_key', apiKey: `tts_${'a'.repeat(16)}_${'B'.repeat(40)}` });
    await rejectsWith(callUnary(forged.getQueueStats.bind(forged), {}), 'GRPC_CALLER_UNAUTHENTICATED');
    // Reflection-free check that the credential travels in metadata: the raw client with the interceptor works.
    const raw = new SchedulerClient(scheduler.address, credentials.createInsecure(), { interceptors: [credentialInterceptor({ kind: 'internal', token: INTERNAL })] });
    assert.equal((await callUnary(raw.getQueueStats.bind(raw), {})).nodesReady, 1);
    raw.close();
  });

  test('an API key submits only as its own owner and tier, and sees only its own jobs', async () => {
    const mine = await insertKey(storage, 'pro');
    const asKey = clientWith({ kind: 'api_key', apiKey: mine.apiKey });
    const own = await submit(asKey);
    assert.deepEqual([own.ownerId, own.ownerKind, own.tier], [mine.keyId, JobOwnerKind.JOB_OWNER_KIND_API_KEY, 'pro']);
    await rejectsWith(submit(asKey, { ownerId: 'another-owner' }), 'GRPC_CALLER_FORBIDDEN');
    await rejectsWith(submit(asKey, { tier: 'enterprise' }), 'GRPC_CALLER_FORBIDDEN');
    await rejectsWith(submit(asKey, { ownerKind: JobOwnerKind.JOB_OWNER_KIND_WEB }), 'GRPC_CALLER_FORBIDDEN');

    // The platform states the owner of a job (the facade has authenticated the user).
    const theirs = await submit(platform, { ownerId: 'someone-else', ownerKind: JobOwnerKind.JOB_OWNER_KIND_API_KEY, tier: 'enterprise' });
    assert.deepEqual([theirs.ownerId, theirs.tier], ['someone-else', 'enterprise']);
    await pollJobEvents(platform, theirs.jobId, 30_000);
    await pollJobEvents(asKey, own.jobId, 30_000);

    assert.equal((await callUnary(asKey.getJob.bind(asKey), { jobId: own.jobId })).job?.state, JobState.JOB_STATE_COMPLETED);
    await rejectsWith(callUnary(asKey.getJob.bind(asKey), { jobId: theirs.jobId }), 'JOB_NOT_FOUND');
    await rejectsWith(callUnary(asKey.listJobEvents.bind(asKey), { jobId: theirs.jobId, afterEventId: 0, limit: 10 }), 'JOB_NOT_FOUND');
    await rejectsWith(callUnary(asKey.cancelJob.bind(asKey), { jobId: theirs.jobId }), 'JOB_NOT_FOUND');
    await rejectsWith(watchJobEvents(asKey, theirs.jobId), 'JOB_NOT_FOUND');
    await rejectsWith(readJobAudio(asKey, theirs.jobId), 'JOB_NOT_FOUND');
    const listed = await callUnary(asKey.listJobs.bind(asKey), { ownerId: 'someone-else', ownerKind: JobOwnerKind.JOB_OWNER_KIND_API_KEY, limit: 50 });
    assert.deepEqual(listed.jobs.map((j) => j.jobId), [own.jobId], 'its own jobs only, whatever owner it asks for');
    assert.equal((await watchJobEvents(asKey, own.jobId)).at(-1)?.kind, 'completed');
    assert.equal((await readJobAudio(asKey, own.jobId)).audio.toString('ascii', 8, 12), 'WAVE');
    // Routing and node views are the platform's.
    await rejectsWith(callUnary(asKey.listNodes.bind(asKey), {}), 'GRPC_CALLER_FORBIDDEN');
    await rejectsWith(callUnary(asKey.pickNode.bind(asKey), { voice: 'flite:slt', engine: '', characters: 10, excludeNodeIds: [], tenantId: '' }), 'GRPC_CALLER_FORBIDDEN');
    assert.equal((await callUnary(platform.listNodes.bind(platform), {})).nodes.length, 1);

    // The guide's example (docs/internal-callers.md) does the same with @grpc/proto-loader.
    const spoken = await speakAsJob(scheduler.address, mine.apiKey, 'Spoken for the guide.');
    assert.equal(spoken.ownerId, mine.keyId);
    assert.equal(spoken.audio.toString('ascii', 8, 12), 'WAVE');

    const disabled = await insertKey(storage, 'free', true);
    const asDisabled = clientWith({ kind: 'api_key', apiKey: disabled.apiKey });
    await rejectsWith(submit(asDisabled), 'AUTH_KEY_DISABLED');
    // Without its secret a disabled key is only invalid, as is a known key id with a wrong secret.
    const otherSecret = (apiKey: string): string => `${apiKey.slice(0, -1)}${apiKey.endsWith('A') ? 'B' : 'A'}`;
    for (const apiKey of [otherSecret(disabled.apiKey), otherSecret(mine.apiKey)]) {
      const guessing = clientWith({ kind: 'api_key', apiKey });
      await rejectsWith(submit(guessing), 'GRPC_CALLER_UNAUTHENTICATED');
    }
  });

  test('nodes register only with the join token', async () => {
    const status = NodeStatusReport.fromPartial({ nodeId: 'intruder', address: '127.0.0.1:9' });
    const unjoined = clientWith();
    await rejectsWith(callUnary(unjoined.registerNode.bind(unjoined), { status }), 'NODE_JOIN_REFUSED');
    const wrong = clientWith({ kind: 'node', token: 'y'.repeat(32) });
    await rejectsWith(callUnary(wrong.registerNode.bind(wrong), { status }), 'NODE_JOIN_REFUSED');
    await rejectsWith(callUnary(wrong.heartbeat.bind(wrong), { status }), 'NODE_JOIN_REFUSED');
    assert.deepEqual((await callUnary(platform.listNodes.bind(platform), {})).nodes.map((n) => n.status?.nodeId), ['callers-node'], 'the intruder is not a member');
  });

  test('beyond loopback the scheduler does not start without both tokens; tokens are at least 16 characters', () => {
    const base = loadSchedulerConfig({});
    assert.throws(() => checkCallerCredentials({ ...base, host: '0.0.0.0' }), (e: unknown) => e instanceof ConfigError && e.variable === 'TTS_INTERNAL_TOKEN');
    assert.throws(() => checkCallerCredentials({ ...base, host: '0.0.0.0', internalToken: INTERNAL }), (e: unknown) => e instanceof ConfigError && e.variable === 'TTS_NODE_JOIN_TOKEN');
    assert.doesNotThrow(() => checkCallerCredentials({ ...base, host: '0.0.0.0', internalToken: INTERNAL, nodeJoinToken: JOIN }));
    assert.doesNotThrow(() => checkCallerCredentials({ ...base, host: '127.0.0.1' }), 'open on loopback');
    assert.throws(() => checkCallerCredentials({ ...base, internalToken: 'short' }), (e: unknown) => e instanceof ConfigError && e.variable === 'TTS_INTERNAL_TOKEN');
  });
});
