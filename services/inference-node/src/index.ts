/**
 * Inference node: serves the tts.v1.Synthesizer gRPC service with pluggable synthesis engines
 * (festival, flite, espeak-ng, ...), admission control and load reporting to the scheduler.
 */
export { start, type NodeStartOptions, type RunningNode } from './server.js';
export { loadNodeConfig, type NodeConfig } from './config.js';
export type { SynthesisEngine, VoiceDescriptor, EngineInput, EngineOutput, Phonemizer } from './engines/engine.js';
