/**
 * The one-command start: scheduler, node and facade as separate processes over real gRPC; a
 * request works; SIGTERM stops everything with no process left behind.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { alive, commandOf, descendants, freePort } from './support/processes.js';
import { postJson, waitFor } from './support/platform.js';
import { nodeArgsFor } from '@tts/common';

test('launcher starts the embedded platform as separate processes and stops it cleanly on SIGTERM', { timeout: 120_000 }, async () => {
  const port = await freePort();
  const schedulerPort = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'tts-launcher-'));
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), SCHEDULER_GRPC_PORT: String(schedulerPort), TTS_NODES: '1', TTS_FESTIVAL_PROCESSES: '1', DATA_DIR: dataDir };
  delete env['DATABASE_URL'];
  delete env['REDIS_URL'];
  delete env['TTS_ADMIN_KEY'];
  const child = spawn(process.execPath, nodeArgsFor('services/launcher/src/main.ts'), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  try {
    await waitFor(() => out.includes('"platform ready"'), 90_000, 'platform ready');
    const pids = descendants(child.pid!);
    const commands = pids.map(commandOf);
    assert.ok(commands.some((c) => c.includes('scheduler/src/main')), 'scheduler process');
    assert.ok(commands.some((c) => c.includes('inference-node/src/main')), 'node process');
    assert.ok(commands.some((c) => c.includes('facade/src/main')), 'facade process');

    const base = `http://127.0.0.1:${port}`;
    const health = (await (await fetch(`${base}/api/health`)).json()) as { mode: string; ready: boolean };
    assert.deepEqual([health.mode, health.ready], ['embedded', true]);

    // Embedded mode: the administrator key is generated on first start, printed once, stored under DATA_DIR.
    const printed = /Administrator key \(shown once; stored in ([^)]+)\): (\S+)/.exec(out);
    assert.ok(printed, 'admin key printed');
    const [, keyPath, adminKey] = printed;
    assert.equal(readFileSync(keyPath!, 'utf8').trim(), adminKey);
    assert.equal(statSync(keyPath!).mode & 0o777, 0o600);
    assert.ok(!out.split('\n').some((line) => line.startsWith('{') && line.includes(adminKey!)), 'the key is in no log line');

    const anonymous = await postJson(`${base}/api/tts`, { text: 'No credential.', voice: 'flite:slt' });
    assert.equal(anonymous.status, 401);
    const created = await postJson(`${base}/api/auth/keys`, { name: 'launcher-test' }, { 'x-admin-key': adminKey! });
    assert.equal(created.status, 201);
    const { api_key: apiKey } = (await created.json()) as { api_key: string };
    const res = await postJson(`${base}/api/tts`, { text: 'The platform is up.', voice: 'flite:slt' }, { 'x-api-key': apiKey });
    assert.equal(res.status, 200);
    assert.ok((await res.arrayBuffer()).byteLength > 10_000);
    assert.ok(statSync(join(dataDir, 'pglite')).isDirectory(), 'embedded database under DATA_DIR');

    // An asynchronous job through the embedded scheduler (its own PGlite, in-process queue).
    const submitted = await postJson(`${base}/api/jobs/tts`, { text: 'An embedded job.', voice: 'flite:slt' }, { 'x-api-key': apiKey });
    assert.equal(submitted.status, 202);
    const { job_id: jobId } = (await submitted.json()) as { job_id: string };
    await waitFor(async () => {
      const j = (await (await fetch(`${base}/api/jobs/${jobId}`, { headers: { 'x-api-key': apiKey } })).json()) as { status: string };
      return j.status === 'completed';
    }, 30_000, 'embedded job completion');
    const audio = await fetch(`${base}/api/jobs/${jobId}/audio`, { headers: { 'x-api-key': apiKey } });
    assert.equal(audio.status, 200);
    assert.ok((await audio.arrayBuffer()).byteLength > 10_000);

    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code] = (await exited) as [number | null];
    assert.equal(code, 0, out.slice(-2000));
    await waitFor(() => pids.every((p) => !alive(p)), 10_000, 'no orphan processes');
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
