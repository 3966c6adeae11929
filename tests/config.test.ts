/** LOG_LEVEL is validated once, at start-up, by every process's config (never cast). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadFacadeConfig } from '@tts/facade';
import { loadNodeConfig } from '@tts/inference-node';
import { loadSchedulerConfig } from '@tts/scheduler';
import { envLogLevel } from '@tts/common';

describe('LOG_LEVEL and GIT_COMMIT', () => {
  it('accepts the four levels, defaults to info, and refuses anything else naming the variable', () => {
    assert.equal(envLogLevel({}), 'info');
    for (const level of ['debug', 'info', 'warn', 'error'] as const) assert.equal(envLogLevel({ LOG_LEVEL: level }), level);
    assert.throws(() => envLogLevel({ LOG_LEVEL: 'verbose' }), /LOG_LEVEL/);
  });

  it('every process config reads it, and fails fast on a bad value', () => {
    for (const load of [loadFacadeConfig, loadSchedulerConfig, loadNodeConfig]) {
      assert.equal(load({ LOG_LEVEL: 'warn' }).logLevel, 'warn');
      assert.throws(() => load({ LOG_LEVEL: 'trace' }), /LOG_LEVEL/);
    }
  });

  it('the facade reads GIT_COMMIT once, into its config', () => {
    assert.equal(loadFacadeConfig({}).gitCommit, null);
    assert.equal(loadFacadeConfig({ GIT_COMMIT: 'abc1234' }).gitCommit, 'abc1234');
  });
});
