import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TtsError } from '@tts/common';
import { JobTokens } from './job-tokens.js';

const secret = Buffer.from('0123456789abcdef0123456789abcdef');

function code(fn: () => void): string {
  try {
    fn();
  } catch (err) {
    return err instanceof TtsError ? err.code : 'other';
  }
  return 'none';
}

test('a token grants its own job until it expires', () => {
  let now = 1_700_000_000_000;
  const tokens = new JobTokens(secret, 60, () => now);
  const { token, expiresUnix } = tokens.issue('job_abcdefgh');
  assert.equal(expiresUnix, 1_700_000_060);
  assert.equal(code(() => tokens.verify(token, 'job_abcdefgh')), 'none');
  assert.equal(code(() => tokens.verify(token, 'job_other123')), 'JOB_TOKEN_INVALID');
  now += 59_000;
  assert.equal(code(() => tokens.verify(token, 'job_abcdefgh')), 'none');
  now += 1_000;
  assert.equal(code(() => tokens.verify(token, 'job_abcdefgh')), 'JOB_TOKEN_EXPIRED');
});

test('forged, malformed, missing and re-signed tokens are refused', () => {
  const tokens = new JobTokens(secret, 60);
  const other = new JobTokens(Buffer.from('another-secret-another-secret-xx'), 60);
  const { token } = tokens.issue('job_abcdefgh');
  const [id, exp] = token.split('.');
  assert.equal(code(() => tokens.verify(undefined, 'job_abcdefgh')), 'JOB_TOKEN_MISSING');
  assert.equal(code(() => tokens.verify('', 'job_abcdefgh')), 'JOB_TOKEN_MISSING');
  assert.equal(code(() => tokens.verify('garbage', 'job_abcdefgh')), 'JOB_TOKEN_INVALID');
  assert.equal(code(() => tokens.verify(`${id}.${Number(exp) + 3600}.${token.split('.')[2]}`, 'job_abcdefgh')), 'JOB_TOKEN_INVALID');
  assert.equal(code(() => tokens.verify(other.issue('job_abcdefgh').token, 'job_abcdefgh')), 'JOB_TOKEN_INVALID');
  assert.equal(code(() => tokens.verify(`${id}.1e9.${token.split('.')[2]}`, 'job_abcdefgh')), 'JOB_TOKEN_INVALID');
});
