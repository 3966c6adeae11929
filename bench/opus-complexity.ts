/**
 * Opus complexity: what libopus's complexity setting costs and buys on the platform's speech, at
 * the rates and bit rates the node uses by default (flite slt at 16 kHz, 32 kbit/s; espeak-ng at
 * 24 kHz, 64 kbit/s). For each complexity: CPU time per second of audio (the encoding session as
 * the node runs it, headers and Ogg pages included), the bit rate VBR spent, the log-spectral
 * distance of the decoded audio to the input (0-7.5 kHz, dB), and the word error rate of the
 * decoded audio through the Vosk recognizer (the input's own for scale). 20 Harvard sentences.
 *   npm run bench opus-complexity
 */
import { defaultBitrateKbps, openOggOpusCodec, OPUS_COMPLEXITY } from '@tts/inference-node/testing';
import { CodecQualityBench, VOICES, logSpectralDistance, writeResults } from './codec-quality.js';
import { r } from './support.js';

const COMPLEXITIES = [10, 7, OPUS_COMPLEXITY, 4];
/** Encodings per sentence for the CPU figure. */
const REPEATS = 3;

const bench = await CodecQualityBench.open('opus');
const codec = openOggOpusCodec();
const results: Record<string, unknown>[] = [];
try {
  for (const v of VOICES) {
    const bitrateKbps = defaultBitrateKbps('opus', v.rate);
    const { inputs, audioSec, refWords, inputWerPct } = await bench.inputs(v);
    const row: Record<string, unknown> = { voice: v.voice, rate: v.rate, bitrate_kbps: bitrateKbps, audio_sec: r(audioSec), input_wer_pct: inputWerPct, complexities: [] as unknown[] };
    for (const complexity of COMPLEXITIES) {
      const encodeOnce = (x: Float32Array): Buffer => {
        const s = codec.open({ sampleRate: v.rate, bitrateKbps, streaming: false, complexity });
        try {
          return Buffer.concat([s.encode(x), s.finish()]);
        } finally {
          s.close();
        }
      };
      for (const x of inputs) encodeOnce(x); // warm-up
      const cpu = process.cpuUsage();
      let bytes = 0;
      for (let k = 0; k < REPEATS; k++) for (const x of inputs) bytes += encodeOnce(x).length;
      const used = process.cpuUsage(cpu);
      let lsd = 0;
      let errors = 0;
      for (const [i, x] of inputs.entries()) {
        const decoded = await bench.decode(encodeOnce(x), 'ogg', v.rate, `c${complexity}-${i}`);
        lsd += logSpectralDistance(x, decoded, v.rate);
        errors += await bench.wordErrors(decoded, v.rate, i, `c${complexity}-${i}`);
      }
      const c = {
        complexity,
        cpu_ms_per_audio_sec: r((used.user + used.system) / 1000 / (REPEATS * audioSec)),
        kbps: r((bytes * 8) / 1000 / (REPEATS * audioSec), 1),
        lsd_db: r(lsd / inputs.length, 3),
        wer_pct: r((100 * errors) / refWords, 1),
      };
      (row['complexities'] as unknown[]).push(c);
      console.log(JSON.stringify({ voice: v.voice, ...c }));
    }
    results.push(row);
  }
} finally {
  await bench.close();
}
writeResults('opus-complexity', { default_complexity: OPUS_COMPLEXITY, results });
