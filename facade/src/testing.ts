/**
 * Test support of the facade (tests and benches only; not part of dist/): its repositories, routing
 * view, cluster view, OpenAPI document, identity and SLO pieces to run in-process.
 */
export * from './data/index.js';
export * from './cluster/cluster.js';
export * from './cluster/node-router.js';
export * from './operations/openapi-document.js';
export * from './identity/index.js';
export * from './operations/slo/index.js';
export * from './operations/slo/objectives.js';
export { pwnedSha1, startFakePwnedPasswords, type FakePwnedPasswords } from './testing/fake-pwned-passwords.js';
export { startFakeSlipOk, testSlipPng, type FakeSlipOk } from './testing/fake-slipok.js';
export { JobTokens } from './jobs/job-tokens.js';
export { openAiSettingsOf, ttsSettingsOf } from './speech/speech-request.js';
export type { SpeechSession, SpeechSessionEvent } from './speech/interactive.js';
export { startWyomingServer, wyomingCaller, type RunningWyoming } from './realtime/wyoming/server.js';
export { CLIENT_MESSAGE_TYPES, SERVER_MESSAGE_TYPES, ClientMessageReader, closeCodeOf, documentedMessageTypes } from './realtime/speech-stream-protocol.js';
