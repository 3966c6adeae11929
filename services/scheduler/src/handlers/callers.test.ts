import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TtsError } from '@tts/common';
import type { JobRecord } from '../data/jobs.js';
import { requirePlatform, visibleJob, type Caller } from './callers.js';

const job = (ownerId: string, ownerKind: JobRecord['ownerKind']): JobRecord => ({ jobId: 'job_1', ownerId, ownerKind }) as JobRecord;
const key: Caller = { kind: 'api_key', keyId: 'key_1', tier: 'pro' };
const notFound = (e: unknown): boolean => e instanceof TtsError && e.code === 'JOB_NOT_FOUND';

describe('callers: who sees which job', () => {
  it('shows an API key its own jobs only: another key’s job, or a web or studio job of the same id, is not found', () => {
    const own = job('key_1', 'api_key');
    assert.equal(visibleJob(key, own), own);
    assert.throws(() => visibleJob(key, job('key_2', 'api_key')), notFound);
    assert.throws(() => visibleJob(key, job('key_1', 'web')), notFound);
    assert.throws(() => visibleJob(key, job('key_1', 'studio')), notFound);
  });

  it('shows a platform component every job, and keeps the platform calls from API keys', () => {
    const theirs = job('someone', 'studio');
    assert.equal(visibleJob({ kind: 'platform' }, theirs), theirs);
    assert.doesNotThrow(() => requirePlatform({ kind: 'platform' }));
    assert.throws(() => requirePlatform(key), (e: unknown) => e instanceof TtsError && e.code === 'GRPC_CALLER_FORBIDDEN');
  });
});
