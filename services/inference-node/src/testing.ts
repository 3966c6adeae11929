/**
 * Test support of the inference node (tests and benches only; not part of dist/): the engines and
 * the pipeline to run in-process, the text front-end, the audio layer and its signal fixtures.
 */
export * from './audio/index.js';
export * from './audio/testing.js';
export * from './batching/index.js';
export * from './domain/pipeline.js';
export * from './engines/espeak/index.js';
export * from './engines/festival/index.js';
export * from './engines/flite/index.js';
export * from './engines/piper/index.js';
export * from './engines/piper/voice-config.js';
export * from './text/index.js';
export * from './engines/testing.js';
export * from './watermark/index.js';
export * from './analysis/testing.js';
export type { SynthesisEngine, WordTiming } from './engines/engine.js';
export { ALIGNMENT_DELAY_SEC, ALIGNMENT_FRAME_SEC, alignmentTokens, matchWords, type AlignedWord } from './analysis/align.js';
export { measurePitch } from './analysis/measure.js';
