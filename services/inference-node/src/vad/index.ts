/**
 * Voice activity detection with Silero VAD (ONNX): speech segments, speech ratio and trimming of
 * synthesized or reference audio.
 */
export { createSileroVad, VAD_SAMPLE_RATE, VAD_WINDOW, type SileroVad, type SileroVadOptions, type SpeechSegment } from './silero-vad.js';
