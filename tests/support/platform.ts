/**
 * Starts a real platform in-process for integration tests: a scheduler and inference nodes as real
 * gRPC servers on loopback port 0, and the facade on an ephemeral HTTP port.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openJobStorage } from '@tts/scheduler/testing';
import { openDatabase, type Database } from '@tts/common/data';
import { freshSchemaName, TEST_DATABASE_URL, freshPrefix, TEST_REDIS_URL } from '@tts/common/testing';
import { openKv } from '@tts/common/kv';
import { closeAllClients } from '@tts/common';
import { start as startScheduler, type RunningScheduler, type SchedulerStartOptions } from '@tts/scheduler';
import { start as startNode, type NodeStartOptions, type RunningNode } from '@tts/inference-node';
import { start as startFacade, type FacadeStartOptions, type RunningFacade } from '@tts/facade';
// Routes (or drops) the log lines of the components tests start in-process.
import './test-logs.js';

/** A running test platform. */
export interface TestPlatform {
  readonly url: string;
  /** The administrator key (X-Admin-Key). */
  readonly adminKey: string;
  /** An API key of the `pro` tier created for the test (X-API-Key). */
  readonly apiKey: string;
  /** POSTs JSON with the test API key (override or drop it with `headers`). */
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
  /** GETs with the test API key. */
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  /** Creates another API key through the admin API; returns its id and secret. */
  createKey(body?: Record<string, unknown>): Promise<{ keyId: string; apiKey: string }>;
  readonly scheduler: RunningScheduler;
  readonly nodes: RunningNode[];
  readonly facade: RunningFacade;
  /** The scheduler's job storage (its own schema): tests read the stored jobs from it. */
  readonly jobDatabase: Database;
  /** Starts one more node registered with the scheduler. */
  addNode(options?: NodeStartOptions): Promise<RunningNode>;
  stop(): Promise<void>;
}

/** Options of startPlatform. */
export interface TestPlatformOptions {
  /** @default 1 */
  readonly nodes?: number;
  readonly node?: NodeStartOptions;
  readonly facade?: FacadeStartOptions;
  /** Settings of the scheduler beside the harness's own (e.g. `jobMaxQueueWaitSec`). */
  readonly scheduler?: Partial<Omit<SchedulerStartOptions, 'database' | 'kv' | 'dataDir'>>;
}

/** Waits until `check` is true (polling), or throws after `timeoutMs`. */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  // 25 ms at first, backing off to 250 ms: a long wait polls an HTTP route at most 4 times a second
  // (the web job routes allow 300 calls a minute per client address).
  for (let pause = 25; Date.now() < deadline; pause = Math.min(250, pause * 1.5)) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, pause));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Waits until the platform serves engine `name` (a node registers before all its voices have loaded). */
export async function waitForEngine(p: Pick<TestPlatform, 'get'>, name: string, timeoutMs = 20_000): Promise<void> {
  await waitFor(async () => {
    const engines = (await (await p.get('/api/plugins/engines')).json()) as { engines: { name: string; ready: boolean }[] };
    return engines.engines.some((e) => e.name === name && e.ready);
  }, timeoutMs, `${name} to be ready`);
}

let nodeCounter = 0;

/** Starts scheduler, nodes and facade. */
export async function startPlatform(options: TestPlatformOptions = {}): Promise<TestPlatform> {
  const jobStorage = await openJobStorage();
  const dataDir = mkdtempSync(join(tmpdir(), 'tts-platform-'));
  const scheduler = await startScheduler({
    // Heartbeats five times as often as in production, but the production time-out: facade,
    // scheduler and nodes share this process, and on a loaded machine one of its event-loop stalls
    // (a minute of audio analysed) outlasted a 1.5 s time-out and the node looked gone.
    host: '127.0.0.1', port: 0, heartbeatMs: 200, nodeTimeoutMs: 3500, staticNodes: [],
    database: jobStorage.database, kv: jobStorage.kv, dataDir,
    ...options.scheduler,
  });
  const nodes: RunningNode[] = [];
  const addNode = async (extra: NodeStartOptions = {}): Promise<RunningNode> => {
    const node = await startNode({
      host: '127.0.0.1',
      port: 0,
      nodeId: `test-node-${process.pid}-${++nodeCounter}`,
      schedulerAddress: scheduler.address,
      heartbeatMs: 200,
      festivalProcesses: 1,
      fliteWorkers: 2,
      dataDir,
      ...options.node,
      ...extra,
    });
    nodes.push(node);
    await waitFor(() => scheduler.context.membership.ready().some((e) => e.status.nodeId === node.nodeId), 10_000, 'node registration');
    return node;
  };
  for (let i = 0; i < (options.nodes ?? 1); i++) await addNode();
  const schema = freshSchemaName();
  const prefix = freshPrefix();
  const adminKey = `test-admin-${randomBytes(16).toString('hex')}`;
  const facade = await startFacade({
    host: '127.0.0.1',
    port: 0,
    schedulerAddress: scheduler.address,
    validateResponses: true,
    databaseUrl: TEST_DATABASE_URL,
    dbSchema: schema,
    redisUrl: TEST_REDIS_URL,
    kvPrefix: prefix,
    adminKey,
    // The hub-token key (an external database needs one) and no real model hub: port 9 refuses at once.
    hubTokenKey: randomBytes(32).toString('hex'),
    hubUrl: 'http://127.0.0.1:9',
    ...options.facade,
  });
  const createKey = async (body: Record<string, unknown> = {}): Promise<{ keyId: string; apiKey: string }> => {
    const res = await postJson(`${facade.url}/api/auth/keys`, { name: 'test', tier: 'pro', ...body }, { 'x-admin-key': adminKey });
    if (res.status !== 201) throw new Error(`creating a key failed: ${res.status} ${await res.text()}`);
    const created = (await res.json()) as { key_id: string; api_key: string };
    return { keyId: created.key_id, apiKey: created.api_key };
  };
  const { apiKey } = await createKey();
  return {
    url: facade.url,
    adminKey,
    apiKey,
    createKey,
    post: (path, body, headers = {}) => postJson(`${facade.url}${path}`, body, { 'x-api-key': apiKey, ...headers }),
    get: (path, headers = {}) => fetch(`${facade.url}${path}`, { headers: { 'x-api-key': apiKey, ...headers } }),
    scheduler,
    nodes,
    facade,
    jobDatabase: jobStorage.database,
    addNode,
    async stop() {
      await facade.stop(2000);
      await Promise.all(nodes.map((n) => n.stop(2000)));
      await scheduler.stop(1000);
      closeAllClients();
      await jobStorage.close();
      rmSync(dataDir, { recursive: true, force: true });
      await dropTestStorage(options.facade?.dbSchema ?? schema, options.facade?.kvPrefix ?? prefix);
    },
  };
}

/** POSTs JSON and returns the response. */
export function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

/** A facade started alone by `startLoneFacade`. */
export interface LoneFacade {
  readonly facade: RunningFacade;
  readonly url: string;
  /** The administrator key (X-Admin-Key). */
  readonly adminKey: string;
  /** Its DATA_DIR, removed by stop(). */
  readonly dataDir: string;
  /** Stops it and drops its schema, keys and data folder. */
  stop(): Promise<void>;
}

/**
 * Starts a facade alone, on its own schema, Redis prefix and data folder, with no scheduler
 * (port 9 refuses at once): for what needs none (the challenge, the health, headers).
 */
export async function startLoneFacade(options: FacadeStartOptions = {}): Promise<LoneFacade> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tts-facade-'));
  const adminKey = `test-admin-${randomBytes(16).toString('hex')}`;
  const schema = freshSchemaName();
  const prefix = freshPrefix();
  const facade = await startFacade({
    host: '127.0.0.1',
    port: 0,
    schedulerAddress: '127.0.0.1:9',
    databaseUrl: TEST_DATABASE_URL,
    dbSchema: schema,
    redisUrl: TEST_REDIS_URL,
    kvPrefix: prefix,
    dataDir,
    adminKey,
    hubTokenKey: randomBytes(32).toString('hex'),
    ...options,
  });
  return {
    facade,
    url: facade.url,
    adminKey,
    dataDir,
    async stop() {
      await facade.stop(1000);
      rmSync(dataDir, { recursive: true, force: true });
      await dropTestStorage(schema, prefix);
    },
  };
}

/** Drops a test's schema and Redis keys. */
async function dropTestStorage(schema: string, prefix: string): Promise<void> {
  const db = await openDatabase({ url: TEST_DATABASE_URL, schema, maxConnections: 1 });
  try {
    await db.query(`DROP SCHEMA IF EXISTS "${schema.replace(/"/g, '""')}" CASCADE`);
  } finally {
    await db.close();
  }
  const kv = await openKv({ url: TEST_REDIS_URL, prefix });
  try {
    if (kv.backend.kind === 'redis') {
      const keys: string[] = [];
      for await (const batch of kv.backend.client.scanIterator({ MATCH: `${prefix}:*`, COUNT: 500 })) keys.push(...batch);
      if (keys.length > 0) await kv.backend.client.unlink(keys);
    }
  } finally {
    await kv.close();
  }
}
