/**
 * The error catalogue and TtsError alone (`@tts/common/errors`): what an engine's worker thread
 * needs of @tts/common. The index loads gRPC, telemetry and storage too, megabytes in every thread
 * that imports it (bench/README.md, `memory`).
 */
export { ERROR_CATALOGUE, elevenLabsErrorOf, isErrorCode, openAiCodeOf, openAiValidationCode, type ElevenLabsErrorType, type ErrorCode, type ErrorSpec, type GrpcStatusName } from './catalogue.js';
export { TtsError } from './tts-error.js';
