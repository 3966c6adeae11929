/**
 * The Piper engine (Piper/VITS voices in ONNX format) and the ONNX plumbing other ONNX engines can
 * reuse: session creation from configured execution providers and a worker-thread runner.
 */
export {
  createPiperEngine,
  type PiperBatchingOptions,
  type PiperEngine,
  type PiperEngineOptions,
  type PiperEngineStats,
} from './piper-engine.js';
export { PiperModel, type PiperScales, type PiperUtterance } from './piper-model.js';
export { BOS, EOS, PAD, phonemesToIds, splitPhonemes, type PhonemeIds } from './phoneme-ids.js';
export { findPiperVoices, parsePiperConfig, readPiperConfig, toBcp47, type PiperVoiceConfig, type PiperVoiceFiles } from './voice-config.js';
export { startOnnxRunner, type OnnxModelSession, type OnnxRunner, type OnnxRunnerOptions } from './onnx-runner.js';
export { createSession, normalizeProviders, type GraphOptimizationLevel, type OnnxSessionConfig, type PlainTensor } from './onnx-session.js';
