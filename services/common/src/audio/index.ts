/**
 * Facts about audio formats that every process shares: names, MIME types and sample rates. The
 * synthesis-side audio pipeline (DSP, resampling, encoders, decoding) is the inference node's.
 */
export {
  type AudioFormat,
  AUDIO_FORMATS,
  MIN_SAMPLE_RATE,
  MAX_SAMPLE_RATE,
  PCM_DEFAULT_SAMPLE_RATE,
  contentTypeOf,
  isAudioFormat,
  parseAudioFormat,
  isSampleRateSupported,
  nearestSupportedRate,
  outputSampleRate,
  checkBitrate,
} from './format.js';
