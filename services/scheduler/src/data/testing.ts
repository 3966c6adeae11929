/** Test support of the scheduler's storage (its unit specs only): jobs to record. */
import type { JobSpecFields, NewJob } from './jobs.js';

/** A job spec: "Hello there." for flite:slt, WAV, default speed and rate; `overrides` change any field. */
export function jobSpecFixture(overrides: Partial<JobSpecFields> = {}): JobSpecFields {
  return {
    text: 'Hello there.',
    voice: 'flite:slt',
    engine: '',
    speed: 0,
    format: 'wav',
    sampleRate: 0,
    language: '',
    mode: 'auto',
    consentConfirmed: true,
    instructions: '',
    rawText: false,
    ...overrides,
  };
}

let jobs = 0;

/** A job to record: a fresh id, API key key_1 of tier pro (priority 1), two attempts, `jobSpecFixture()`; `overrides` change any field. */
export function newJobFixture(overrides: Partial<NewJob> = {}): NewJob {
  return {
    jobId: `job_${++jobs}`,
    ownerId: 'key_1',
    ownerKind: 'api_key',
    tier: 'pro',
    priority: 1,
    requestId: null,
    maxAttempts: 2,
    spec: jobSpecFixture(),
    ...overrides,
  };
}
