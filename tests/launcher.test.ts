/**
 * The one-command start: scheduler, node and facade as separate processes over real gRPC; a
 * request works; SIGTERM stops everything with no process left behind.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { alive, commandOf, descendants, freePort } from './support/processes.js';
import { postJson, waitFor } from './support/platform.js';

test('launcher starts the platform as separate processes and stops it cleanly on SIGTERM', { timeout: 120_000 }, async () => {
  const port = await freePort();
  const schedulerPort = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'services/launcher/src/main.ts'], {
    env: { ...process.env, PORT: String(port), SCHEDULER_GRPC_PORT: String(schedulerPort), TTS_NODES: '1', TTS_FESTIVAL_PROCESSES: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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

    const res = await postJson(`http://127.0.0.1:${port}/api/tts`, { text: 'The platform is up.', voice: 'flite:slt' });
    assert.equal(res.status, 200);
    assert.ok((await res.arrayBuffer()).byteLength > 10_000);

    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code] = (await exited) as [number | null];
    assert.equal(code, 0, out.slice(-2000));
    await waitFor(() => pids.every((p) => !alive(p)), 10_000, 'no orphan processes');
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});
