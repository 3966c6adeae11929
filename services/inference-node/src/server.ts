/**
 * Starts and stops an inference node: loads engines, serves the Synthesizer gRPC service (with
 * grpc.health.v1), warms up, and keeps itself registered with the scheduler by heartbeats.
 */
import path from 'node:path';
import { NodeState, SynthesizerService } from '@tts/proto/synthesis';
import type { SynthesizerServer } from '@tts/proto/synthesis';
import { callUnary, checkPlaintextListen, configureGrpcTls, ensurePrivateDir, schedulerClient, startGrpcServer, type RunningGrpcServer, createLogger, type Logger, setLogLevel } from '@tts/common';
import type { SynthesisEngine } from './engines/engine.js';
import { EngineRegistry } from './engines/registry.js';
import { Admission } from './domain/admission.js';
import type { NodeContext } from './domain/node-context.js';
import { warmUp } from './domain/warmup.js';
import { installedVadModel, loadNodeConfig, type NodeConfig } from './config.js';
import { createSileroVad, type SileroVad } from './vad/index.js';
import { listVoices } from './handlers/list-voices.js';
import { nodeStatus, nodeStatusReport } from './handlers/node-status.js';
import { synthesize } from './handlers/synthesize.js';
import { synthesizeStream } from './handlers/synthesize-stream.js';
import { synthesizeInteractive } from './handlers/synthesize-interactive.js';
import { recentAudioEvents } from './handlers/recent-audio-events.js';
import { AudioEventLog } from './domain/audio-events.js';
import { observeNodeLoad } from '@tts/common/telemetry';
import { AudioAnalyzerService } from '@tts/proto/analysis';
import { createAnalysisContext, type AnalysisContext } from './analysis/context.js';
import { audioAnalyzer } from './handlers/audio-analysis.js';
import { Cloner } from './cloning/clone.js';

/** Options of start(): any config field overrides the environment's. */
export interface NodeStartOptions extends Partial<NodeConfig> {
  /** Engines built by the caller (e.g. ONNX engines with their own settings), loaded beside `engines`. */
  readonly extraEngines?: readonly SynthesisEngine[];
  readonly logger?: Logger;
}

/** A running node. */
export interface RunningNode {
  readonly nodeId: string;
  readonly address: string;
  readonly port: number;
  readonly context: NodeContext;
  /** Drains (no new work, in-flight finishes within graceMs, default NODE_DRAIN_TIMEOUT_MS), deregisters by heartbeat, closes engines. */
  stop(graceMs?: number): Promise<void>;
}

/** Loads engines, listens, warms up and registers. Resolves once the node is READY. */
export async function start(options: NodeStartOptions = {}): Promise<RunningNode> {
  const fromEnv = loadNodeConfig();
  const config: NodeConfig = {
    ...fromEnv,
    // A model search path given here is where the VAD is looked for too (unless a model is named).
    ...(options.modelDirs !== undefined && !('vadModel' in options) && process.env['TTS_VAD_MODEL'] === undefined ? { vadModel: installedVadModel(options.modelDirs) } : {}),
    ...stripUndefined(options),
  };
  checkPlaintextListen(config, config.grpcTls);
  setLogLevel(config.logLevel);
  const logger = options.logger ?? createLogger('inference-node', { node_id: config.nodeId });
  // Before the first gRPC server or client: every hop then uses the same TLS material (or none).
  await configureGrpcTls(config.grpcTls, (message) => logger.warn(message));
  // The VAD (a second ONNX model) trims rendered audio only when asked to and a model is configured.
  const vad: SileroVad | undefined = config.vadTrim && config.vadModel !== undefined ? await createSileroVad(config.vadModel) : undefined;
  if (vad) logger.info('VAD trimming on', { model: config.vadModel, device: vad.device });
  let registry: EngineRegistry;
  try {
    registry = await EngineRegistry.load(config.engines, config, logger, {
      defaultVoice: config.defaultVoice,
      idleUnload: config.idleUnload,
      ...(options.extraEngines ? { extra: options.extraEngines } : {}),
    });
  } catch (err) {
    await vad?.close();
    throw err;
  }
  let analysis: AnalysisContext;
  try {
    // Uploads to analyse are written there: private (0700), never a folder another user made.
    ensurePrivateDir(config.uploadTmpDir);
    analysis = await createAnalysisContext(config, logger, vad ? { vad } : {});
  } catch (err) {
    await registry.close();
    await vad?.close();
    throw err;
  }
  const admission = new Admission({ maxQueue: config.maxQueue, maxSessions: config.maxSessions });
  for (const e of registry.ready()) admission.addEngine(e.name, e.concurrency);
  const ctx: NodeContext = {
    nodeId: config.nodeId,
    address: '',
    registry,
    admission,
    deps: {
      registry,
      admission,
      maxChars: config.maxChars,
      sentencesInFlight: config.sentencesInFlight,
      encoders: config.encoders,
      opusComplexity: config.opusComplexity,
      mp3Quality: config.mp3Quality,
      ...(vad ? { vad } : {}),
      audioEvents: new AudioEventLog(config.nodeId),
      ...(config.watermark ? { watermarkKey: analysis.watermark.active } : {}),
      // Words of engines without timings, aligned with the ASR model when one is installed (loaded on first use).
      aligner: async (audio, text) => (await analysis.models.speech())?.alignWords(audio, text) ?? [],
    },
    sessionLimits: { maxContexts: config.sessionMaxContexts, maxBufferedChars: config.sessionMaxBufferedChars },
    analysis,
    cloner: new Cloner(registry, analysis.models, logger, path.join(config.dataDir, 'voice-profiles.json')),
    logger,
    startedUnixMs: Date.now(),
    state: NodeState.NODE_STATE_LOADING,
    warmup: { done: false, durationMs: 0, voices: [], error: '' },
  };
  const impl: SynthesizerServer = {
    synthesize: synthesize(ctx),
    synthesizeStream: synthesizeStream(ctx),
    synthesizeInteractive: synthesizeInteractive(ctx),
    listVoices: listVoices(ctx),
    nodeStatus: nodeStatus(ctx),
    recentAudioEvents: recentAudioEvents(ctx),
  };
  let grpc: RunningGrpcServer;
  try {
    grpc = await startGrpcServer({
      host: config.host,
      port: config.port,
      socketPath: config.socketPath,
      services: [
        { definition: SynthesizerService, implementation: impl, name: 'tts.v1.Synthesizer' },
        { definition: AudioAnalyzerService, implementation: audioAnalyzer(ctx), name: 'tts.v1.AudioAnalyzer' },
      ],
      initialStatus: 'NOT_SERVING',
    });
  } catch (err) {
    await registry.close();
    await analysis.close();
    await vad?.close();
    throw err;
  }
  ctx.address = config.advertiseAddress ?? grpc.address;
  if (config.warmup) {
    ctx.warmup = await warmUp(registry);
    logger.info('warm-up done', { ms: Math.round(ctx.warmup.durationMs), voices: ctx.warmup.voices, error: ctx.warmup.error || undefined });
  } else {
    ctx.warmup = { done: true, durationMs: 0, voices: [], error: '' };
  }
  ctx.state = registry.ready().length > 0 ? NodeState.NODE_STATE_READY : NodeState.NODE_STATE_LOADING;
  grpc.setServing(ctx.state === NodeState.NODE_STATE_READY ? 'SERVING' : 'NOT_SERVING');
  const membership = config.schedulerAddress ? startMembership(ctx, config.schedulerAddress, config.heartbeatMs, config.nodeJoinToken) : undefined;
  const stopLoadGauges = observeNodeLoad(config.nodeId, () => ({ inFlight: admission.inFlight(), queueDepth: admission.queueDepth(), queuedWorkSeconds: admission.queuedWorkSeconds() }));
  logger.info('inference node ready', { address: ctx.address, engines: registry.ready().map((e) => e.name), state: NodeState[ctx.state] });

  let stopping: Promise<void> | undefined;
  return {
    nodeId: config.nodeId,
    address: ctx.address,
    port: grpc.port,
    context: ctx,
    stop(graceMs = config.drainTimeoutMs) {
      stopping ??= (async () => {
        const deadline = Date.now() + graceMs;
        ctx.state = NodeState.NODE_STATE_DRAINING; // new calls are refused from now on (admitCall)
        grpc.setServing('NOT_SERVING');
        await membership?.stop();
        stopLoadGauges();
        // The calls in flight finish and send their whole answer before the connections close.
        await grpc.stop(Math.max(0, deadline - Date.now()));
        await registry.close();
        await analysis.close();
        await vad?.close();
        logger.info('inference node stopped');
      })();
      return stopping;
    },
  };
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Registers with the scheduler and heart-beats until stopped; re-registers when forgotten. */
function startMembership(ctx: NodeContext, schedulerAddress: string, intervalMs: number, joinToken: string | undefined): { stop(): Promise<void> } {
  const client = schedulerClient(schedulerAddress, joinToken === undefined ? undefined : { kind: 'node', token: joinToken });
  let registered = false;
  let stopped = false;
  let period = intervalMs;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> = Promise.resolve();
  let lastError = '';
  const beat = async (): Promise<void> => {
    try {
      const status = nodeStatusReport(ctx);
      if (!registered) {
        const res = await callUnary(client.registerNode.bind(client), { status }, { timeoutMs: 2000 });
        registered = true;
        period = res.heartbeatIntervalMs > 0 ? Math.min(res.heartbeatIntervalMs, intervalMs) : intervalMs;
        ctx.logger.info('registered with scheduler', { scheduler: schedulerAddress });
      } else {
        const res = await callUnary(client.heartbeat.bind(client), { status }, { timeoutMs: 2000 });
        if (!res.known) registered = false;
      }
      lastError = '';
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      if (msg !== lastError) ctx.logger.warn('scheduler unreachable', { scheduler: schedulerAddress, err: msg });
      lastError = msg;
      registered = false;
    }
  };
  const loop = (): void => {
    if (stopped) return;
    inFlight = beat().finally(() => {
      if (!stopped) timer = setTimeout(loop, period);
    });
  };
  loop();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await inFlight;
      // One last heartbeat with state DRAINING so the scheduler stops routing here at once.
      await beat();
    },
  };
}
