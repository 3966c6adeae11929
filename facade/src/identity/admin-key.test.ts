import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, TtsError } from '@tts/common';
import { ADMIN_KEY_FILE, AdminKeyVerifier, loadAdminKey } from './admin-key.js';

const code = (c: string) => (e: unknown) => e instanceof TtsError && e.code === c;

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'tts-admin-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('administrator key', () => {
  it('takes TTS_ADMIN_KEY when set, refusing a short one', async () => {
    await withDir(async (dir) => {
      const env = 'e'.repeat(32);
      assert.deepEqual(await loadAdminKey({ envValue: env, dataDir: dir }), { key: env, source: 'env', printOnce: false, path: undefined });
      await assert.rejects(loadAdminKey({ envValue: 'short' }), (e: unknown) => e instanceof ConfigError && e.variable === 'TTS_ADMIN_KEY');
    });
  });

  it('generates the key on the first embedded start (mode 0600, print once) and reads it afterwards', async () => {
    await withDir(async (dir) => {
      const first = await loadAdminKey({ dataDir: dir });
      assert.equal(first.source, 'generated');
      assert.equal(first.printOnce, true);
      assert.match(first.key, /^tts_admin_[A-Za-z0-9]{43}$/);
      assert.equal(first.path, join(dir, ADMIN_KEY_FILE));
      assert.equal((await stat(first.path!)).mode & 0o777, 0o600);
      assert.equal((await readFile(first.path!, 'utf8')).trim(), first.key);
      const second = await loadAdminKey({ dataDir: dir, envValue: '' });
      assert.deepEqual(second, { key: first.key, source: 'file', printOnce: false, path: first.path });
    });
  });

  it('gives racing first starts the same key, printed by exactly one', async () => {
    await withDir(async (dir) => {
      const loads = await Promise.all(Array.from({ length: 8 }, () => loadAdminKey({ dataDir: dir })));
      assert.equal(new Set(loads.map((l) => l.key)).size, 1);
      assert.equal(loads.filter((l) => l.printOnce).length, 1);
    });
  });

  it('tightens a key file readable by others and refuses a truncated one', async () => {
    await withDir(async (dir) => {
      const path = join(dir, ADMIN_KEY_FILE);
      await writeFile(path, `${'k'.repeat(30)}\n`);
      await chmod(path, 0o644);
      assert.equal((await loadAdminKey({ dataDir: dir })).key, 'k'.repeat(30));
      assert.equal((await stat(path)).mode & 0o777, 0o600);
      await writeFile(path, 'tiny');
      await assert.rejects(loadAdminKey({ dataDir: dir }), ConfigError);
    });
  });

  it('requires TTS_ADMIN_KEY without DATA_DIR', async () => {
    await assert.rejects(loadAdminKey({}), (e: unknown) => e instanceof ConfigError && /TTS_ADMIN_KEY/.test(e.message));
  });

  it('verifies X-Admin-Key: 403 AUTH_ADMIN_REQUIRED when absent, 401 AUTH_ADMIN_KEY_INVALID when wrong', () => {
    const key = 'tts_admin_' + 'a'.repeat(43);
    const verifier = new AdminKeyVerifier(key);
    assert.doesNotThrow(() => verifier.verify(key));
    assert.throws(() => verifier.verify(undefined), code('AUTH_ADMIN_REQUIRED'));
    assert.throws(() => verifier.verify(''), code('AUTH_ADMIN_REQUIRED'));
    for (const bad of [key + 'a', key.slice(0, -1), 'x'.repeat(10_000), key.toUpperCase()]) {
      const err = (() => { try { verifier.verify(bad); return undefined; } catch (e) { return e; } })();
      assert.ok(code('AUTH_ADMIN_KEY_INVALID')(err));
      assert.ok(!(err as Error).message.includes(key.slice(10, 30)), 'no key in the message');
    }
    assert.equal(new TtsError('AUTH_ADMIN_REQUIRED').spec.http, 403);
    assert.equal(new TtsError('AUTH_ADMIN_KEY_INVALID').spec.http, 401);
    assert.equal(verifier.matches(key), true);
    assert.equal(verifier.matches(undefined), false);
  });
});
