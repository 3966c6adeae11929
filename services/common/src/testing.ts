/**
 * Test support of the shared code (tests and benches only; not part of dist/): storage and kv
 * backends for the real-server suites, routing fixtures, a predicate for catalogue errors.
 */
export * from './data/testing.js';
export { isTtsError } from './errors/testing.js';
export { TEST_REDIS_URL, freshPrefix, kvBackends, type TestKvBackend } from './kv/testing.js';
export * from './routing/testing.js';
