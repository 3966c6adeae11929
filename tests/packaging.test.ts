/**
 * What ships: every package's dist/ (built by the test script's set-up) holds product code only,
 * no test support, specs or test hooks; and a built package resolves without the source condition.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';

const root = new URL('..', import.meta.url).pathname;
const workspaces = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces;
const shipped = workspaces.filter((w) => w !== 'scripts/fixtures');

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

describe('packaging', () => {
  it('every shipped package has a dist/ with its entry points, and nothing of the tests', () => {
    for (const w of shipped) {
      const dist = join(root, w, 'dist');
      assert.ok(existsSync(dist), `${w}/dist (npm run build)`);
      const files = walk(dist).map((f) => relative(root, f));
      const testing = files.filter((f) => /(^|\/)testing(\/|\.)|\.test\.|fixtures/.test(f));
      assert.deepEqual(testing, [], `${w}: test support in dist`);
      const hooks = files.filter((f) => f.endsWith('.js') && /ForTest\b/.test(readFileSync(join(root, f), 'utf8')));
      assert.deepEqual(hooks, [], `${w}: test hooks in shipped code`);
      // The web application is a Vite build (a page and its assets), not a module package.
      const exportsMap = (JSON.parse(readFileSync(join(root, w, 'package.json'), 'utf8')) as { exports?: Record<string, string | Record<string, string>> }).exports ?? { './index.html': './dist/index.html' };
      for (const [entry, target] of Object.entries(exportsMap)) {
        const file = typeof target === 'string' ? target : target['default'];
        if (file === undefined) continue; // source-only entries (./testing) are not shipped
        assert.ok(existsSync(join(root, w, file)), `${w} ${entry} -> ${file}`);
      }
    }
  });

  it('compiled packages resolve to dist/, and test support is not reachable from them', () => {
    const script = `
      const common = await import('@tts/common');
      const url = import.meta.resolve('@tts/facade');
      let testing = 'reachable';
      try { import.meta.resolve('@tts/inference-node/testing'); } catch (err) { testing = err.code; }
      console.log(JSON.stringify({ version: common.VERSION, facade: url, testing }));`;
    const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } })) as { version: string; facade: string; testing: string };
    assert.match(out.facade, /\/facade\/dist\/index\.js$/);
    assert.equal(out.testing, 'ERR_PACKAGE_PATH_NOT_EXPORTED');
    assert.match(out.version, /^\d+\.\d+\.\d+/);
  });
});
