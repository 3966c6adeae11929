import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ensurePrivateDir } from '../grpc/unix-socket.js';
import { makeTreePrivate, privateTempDir, removeTempDir } from './private-files.js';

const modeOf = (p: string): number => statSync(p).mode & 0o777;

describe('private files', () => {
  test('privateTempDir makes a 0700 folder; removeTempDir removes it with its files', async () => {
    const dir = await privateTempDir('tts-private-test-');
    assert.equal(modeOf(dir), 0o700);
    writeFileSync(path.join(dir, 'a'), 'x');
    await removeTempDir(dir);
    assert.equal(existsSync(dir), false);
  });

  test('a temporary folder left at exit is removed', () => {
    const printed = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `
      const { privateTempDir } = await import(${JSON.stringify(new URL('./private-files.ts', import.meta.url).href)});
      const dir = await privateTempDir('tts-private-exit-');
      console.log(dir);
      process.exit(0);
    `], { encoding: 'utf8' }).trim();
    assert.match(printed, /tts-private-exit-/);
    assert.equal(existsSync(printed), false, printed);
  });

  test('makeTreePrivate: files 0600, folders 0700', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'tts-tree-'));
    try {
      mkdirSync(path.join(root, 'a', 'b'), { recursive: true, mode: 0o755 });
      writeFileSync(path.join(root, 'a', 'b', 'f'), 'x', { mode: 0o666 });
      writeFileSync(path.join(root, 'g'), 'x', { mode: 0o644 });
      await makeTreePrivate(root);
      assert.deepEqual([root, path.join(root, 'a'), path.join(root, 'a', 'b'), path.join(root, 'a', 'b', 'f'), path.join(root, 'g')].map(modeOf), [0o700, 0o700, 0o700, 0o600, 0o600]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test("ensurePrivateDir makes a folder 0700 and refuses another user's", () => {
    const root = mkdtempSync(path.join(tmpdir(), 'tts-ensure-'));
    try {
      const mine = path.join(root, 'mine');
      mkdirSync(mine, { mode: 0o755 });
      ensurePrivateDir(mine);
      assert.equal(modeOf(mine), 0o700);
      // Another user's folder: one given away as root, else the root-owned file system root.
      let theirs = '/';
      if (process.getuid?.() === 0) {
        theirs = path.join(root, 'theirs');
        mkdirSync(theirs, { mode: 0o777 });
        chownSync(theirs, 65534, 65534);
      }
      assert.throws(() => ensurePrivateDir(theirs), /belongs to another user/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
