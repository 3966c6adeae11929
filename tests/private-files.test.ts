/**
 * What the platform writes is private to its user, checked on the one-command start (real
 * processes, embedded): every process runs with umask 077 (festival's processes included); every
 * file under DATA_DIR (the embedded database, job audio, the administrator key, the watermark key,
 * the hub-token key) is 0600 and every folder 0700, while running and after the stop; festival's
 * temporary utterance files live in a private folder of the node's TMPDIR, are removed after use,
 * and the folder at exit; the uploads folder is private; the metrics endpoints listen on loopback
 * only when METRICS_HOST is not set.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { commandOf, descendants, freePort, spawnLauncher } from './support/processes.js';
import { postJson, waitFor } from './support/platform.js';

/** Mode bits (permissions) of every file and folder under `root`, by path; sockets and symlinks apart. */
function modesUnder(root: string): Map<string, { kind: 'file' | 'dir' | 'other'; mode: number }> {
  const out = new Map<string, { kind: 'file' | 'dir' | 'other'; mode: number }>();
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      let stat;
      try {
        stat = lstatSync(p);
      } catch {
        continue; // removed while walking (a temporary file)
      }
      out.set(p, { kind: stat.isDirectory() ? 'dir' : stat.isFile() ? 'file' : 'other', mode: stat.mode & 0o777 });
      if (stat.isDirectory()) walk(p);
    }
  };
  walk(root);
  return out;
}

/** Paths under `root` readable, writable or searchable by group or others. */
function notPrivate(root: string): string[] {
  return [...modesUnder(root)].filter(([, m]) => m.kind !== 'other' && (m.mode & 0o077) !== 0).map(([p, m]) => `${p} ${m.mode.toString(8)}`);
}

/** True when a TCP connection to host:port is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host, port });
    s.setTimeout(2000, () => {
      s.destroy();
      resolve(false);
    });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** The umask of a running process (from /proc), or undefined when it is gone. */
function umaskOf(pid: number): number | undefined {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('Umask:'));
    return line === undefined ? undefined : parseInt(line.split(/\s+/)[1]!, 8);
  } catch {
    return undefined;
  }
}

test('the platform writes only private files: umask 077, DATA_DIR 0600/0700, private temporary files removed, metrics on loopback', { timeout: 180_000 }, async () => {
  const port = await freePort();
  const metricsPort = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'tts-private-'));
  const tmp = mkdtempSync(join(tmpdir(), 'tts-private-tmp-'));
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), METRICS_PORT: String(metricsPort), TTS_NODES: '1', TTS_FESTIVAL_PROCESSES: '1', TTS_ENGINES: 'festival,flite', DATA_DIR: dataDir, TMPDIR: tmp };
  for (const k of ['DATABASE_URL', 'SCHEDULER_DATABASE_URL', 'REDIS_URL', 'TTS_ADMIN_KEY', 'METRICS_HOST', 'TTS_UPLOAD_TMP_DIR', 'TTS_SOCKET_DIR']) delete env[k];
  const { child, output } = spawnLauncher(env);
  try {
    await waitFor(() => output().includes('"platform ready"'), 120_000, 'platform ready');
    const base = `http://127.0.0.1:${port}`;

    // Every process of the platform, festival's included, creates private files.
    // (tsx's esbuild service, started by the source loader before the launcher's first line, writes nothing.)
    const pids = [child.pid!, ...descendants(child.pid!)].filter((pid) => !commandOf(pid).includes('esbuild'));
    const masks = pids.map((pid) => [pid, umaskOf(pid)] as const).filter(([, m]) => m !== undefined);
    assert.ok(masks.length >= 4, `launcher, control, node and festival: ${masks.length}`);
    for (const [pid, mask] of masks) assert.equal(mask, 0o077, `umask of ${pid} ${mask?.toString(8)}: ${commandOf(pid)}`);

    // Work that writes: a key (the database), speech by festival (its utterance files), a job (its audio).
    const adminKey = /Administrator key \(shown once; stored in [^)]+\): (\S+)/.exec(output())?.[1];
    assert.ok(adminKey, 'admin key printed');
    const created = await postJson(`${base}/api/auth/keys`, { name: 'private-files' }, { 'x-admin-key': adminKey });
    assert.equal(created.status, 201);
    const { api_key: apiKey } = (await created.json()) as { api_key: string };
    for (const voice of ['festival:slt', 'flite:slt']) {
      const res = await postJson(`${base}/api/tts`, { text: 'Private files only.', voice }, { 'x-api-key': apiKey });
      assert.equal(res.status, 200, voice);
      await res.arrayBuffer();
    }
    const submitted = await postJson(`${base}/api/jobs/tts`, { text: 'A job whose audio is stored.', voice: 'flite:slt' }, { 'x-api-key': apiKey });
    assert.equal(submitted.status, 202);
    const { job_id: jobId } = (await submitted.json()) as { job_id: string };
    await waitFor(async () => ((await (await fetch(`${base}/api/jobs/${jobId}`, { headers: { 'x-api-key': apiKey } })).json()) as { status: string }).status === 'completed', 30_000, 'job completed');

    const written = [...modesUnder(dataDir).keys()].map((p) => p.slice(dataDir.length + 1));
    for (const expected of ['pglite', 'admin-key', 'artifacts', 'watermark-keys.json', 'hub-token.key']) {
      assert.ok(written.some((p) => p === expected || p.startsWith(`${expected}`)), `${expected} under DATA_DIR: ${written.filter((p) => !p.includes('/')).join(', ')}`);
    }
    assert.ok(written.some((p) => p.startsWith('artifacts/') && p.endsWith('.wav')), 'the job audio is stored');
    assert.deepEqual(notPrivate(dataDir), [], 'every file 0600 and folder 0700 under DATA_DIR');

    // Temporary files: festival's folder and the uploads folder private, no utterance file left behind.
    const temporary = modesUnder(tmp);
    const festivalDirs = [...temporary].filter(([p, m]) => m.kind === 'dir' && /\/tts-festival-[^/]+$/.test(p));
    assert.equal(festivalDirs.length, 1, [...temporary.keys()].join(', '));
    assert.equal(temporary.get(join(tmp, 'tts-uploads'))?.mode, 0o700, 'uploads folder');
    assert.deepEqual([...temporary.keys()].filter((p) => /\.wav$/.test(p)), [], 'utterance files removed after use');
    // (tsx-*: the compile cache of the source loader the test runs the platform under, not the platform's.)
    assert.deepEqual(notPrivate(tmp).filter((p) => !p.startsWith(join(tmp, 'tsx-'))), []);

    // Metrics: loopback only, since METRICS_HOST is not set.
    const external = Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
    for (const p of [metricsPort, metricsPort + 2]) {
      const metrics = await fetch(`http://127.0.0.1:${p}/metrics`);
      assert.equal(metrics.status, 200, `metrics on ${p}`);
      await metrics.arrayBuffer();
      if (external !== undefined) assert.equal(await accepts(external, p), false, `metrics port ${p} not on ${external}`);
    }
    if (external !== undefined) assert.equal(await accepts(external, port), true, `the public port is on ${external}`);

    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code] = (await exited) as [number | null];
    assert.equal(code, 0, output().slice(-2000));
    // Stopped: still private (the database wrote its last files), festival's folder removed at exit.
    assert.deepEqual(notPrivate(dataDir), []);
    assert.deepEqual([...modesUnder(tmp).keys()].filter((p) => p.includes('tts-festival-')), [], 'festival folder removed at exit');
  } finally {
    if (child.exitCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
    rmSync(tmp, { recursive: true, force: true, maxRetries: 5 });
  }
});
