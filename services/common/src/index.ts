/**
 * Code shared by the facade, the scheduler and the inference nodes: the error catalogue, config
 * readers, structured logging, gRPC plumbing and telemetry. Processes import it through this index.
 */
export * from './errors/index.js';
export { SSML_MAX_BREAK_SEC, SSML_MAX_TOTAL_BREAK_SEC, dateFields, isSsml, parseSsml, type DateFormat, type Prosody, type SayAsKind, type SsmlSegment } from './ssml/ssml.js';
export {
  IPA_SYMBOLS, LEXICON_LIMITS, checkLexicon, checkLexiconEntry, checkLexiconWord, invalidIpaSymbol, lexiconMessages, lexiconOfMessages, lexiconWordKey, mergeLexicons, normalizeLexiconWord,
  type LexiconEntry, type LexiconEntryInput,
} from './lexicon/index.js';
export { ConfigError, envLogLevel, envBool, envEnum, envInt, envList, envNumber, envOptional, envString } from './config/env.js';
export { LOG_LEVELS, createLogger, lastLogSequence, logFields, onLog, recentLogs, setLogLevel, setLogSink, withLogFields, type Logger, type LogLevel, type LogRecord } from './logging/logger.js';
export { fromServiceError, toServiceError } from './grpc/errors.js';
export { CREDENTIAL_METADATA, credentialInterceptor, metadataValue, sameSecret, type CallerCredential } from './grpc/caller-credentials.js';
export { API_KEY_ID_ALPHABET, API_KEY_ID_LENGTH, API_KEY_SECRET_LENGTH, apiKeyIdOf, apiKeyOf, apiKeyPrefixOf, isApiKeyId } from './api-key-format.js';
export { startGrpcServer, type GrpcServerOptions, type RunningGrpcServer, type ServiceBinding } from './grpc/server.js';
export { GRPC_CLIENT_AUTH_MODES, LOOPBACK_HOSTS, checkPlaintextListen, configureGrpcTls, grpcTlsEnabled, readGrpcTlsConfig, type GrpcClientAuth, type GrpcListenAddress, type GrpcTlsConfig } from './grpc/tls.js';
export { MAX_SOCKET_PATH, ensurePrivateDir, unixAddress } from './grpc/unix-socket.js';
export { audioAnalyzerClient, callUnary, callUpload, closeAllClients, deadlineIn, schedulerClient, synthesizerClient, type UnaryCallOptions } from './grpc/clients.js';
export { openInteractive, type InteractiveCall } from './grpc/interactive.js';
export { VERSION, SERVICE_NAME } from './version.js';
export { BITRATE_RANGE_KBPS, DEFAULT_MAX_UPLOAD_BYTES, OPENAI_MAX_INPUT_CHARS, REFERENCE_GUIDELINE, SAMPLE_RATE_RANGE, SPEED_RANGE } from './limits.js';
export { payloadHex, watermarkPayloadOf } from './watermark-payload.js';
export { encodingOf, formatOf } from './grpc/encoding.js';
export { isTerminalJobState } from './job-state.js';
export { exitWithParent } from './process/parent-watch.js';
export { SOURCE_CONDITION, SOURCE_EXEC_ARGV, nodeArgsFor } from './process/node-args.js';
export { runService, type StoppableService } from './process/run-service.js';
export { PRIVATE_UMASK, privateTempDir, removeTempDir, usePrivateUmask } from './process/private-files.js';
export * from './telemetry/index.js';
