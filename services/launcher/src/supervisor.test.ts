import assert from 'node:assert/strict';
import { test } from 'node:test';
import { childEnvironment } from './supervisor.js';

test('a child gets the launcher\'s V8 and malloc settings first and the user\'s own after them, so the user\'s win', () => {
  const bare = childEnvironment({ PATH: '/usr/bin' });
  assert.deepEqual(bare, { PATH: '/usr/bin', NODE_OPTIONS: '--max-semi-space-size=2', GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=32768' });
  const own = childEnvironment({ NODE_OPTIONS: '--max-semi-space-size=8', GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=1048576' });
  assert.equal(own['NODE_OPTIONS'], '--max-semi-space-size=2 --max-semi-space-size=8');
  assert.equal(own['GLIBC_TUNABLES'], 'glibc.malloc.mmap_threshold=32768:glibc.malloc.mmap_threshold=1048576');
  assert.equal(childEnvironment({ GLIBC_TUNABLES: ' ' })['GLIBC_TUNABLES'], 'glibc.malloc.mmap_threshold=32768');
});
