/**
 * Test support of the facade (tests and benches only; not part of dist/): its repositories, routing
 * view, cluster view, OpenAPI document, identity and SLO pieces to run in-process.
 */
export * from './data/index.js';
export * from './domain/cluster.js';
export * from './domain/node-router.js';
export * from './domain/openapi-document.js';
export * from './identity/index.js';
export * from './slo/index.js';
export * from './slo/objectives.js';
export { pwnedSha1, startFakePwnedPasswords, type FakePwnedPasswords } from './testing/fake-pwned-passwords.js';
export { startFakeSlipOk, testSlipPng, type FakeSlipOk } from './testing/fake-slipok.js';
export { JobTokens } from './domain/job-tokens.js';
