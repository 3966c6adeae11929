/**
 * What the provenance mark costs (`npm run bench watermark-cost`, about 2 minutes):
 * - the embedder alone, ms per second of audio at each output rate (60 s of speech-like noise,
 *   4096-sample chunks), and building one request's pattern;
 * - the mark's share of every engine's synthesis on a node in-process (the pipeline times the
 *   mark: SynthesisStats.watermarkMs): whole-file synthesis of a sentence and of a paragraph, and
 *   the first piece of a stream. Writes bench/results/watermark-cost.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { setLogSink } from '@tts/common';
import { start as startNode } from '@tts/inference-node';
import { WatermarkEmbedder, planSynthesis, renderAudio, synthesizeWhole, type PipelineDeps, type SynthesisJob, type SynthesisStats } from '@tts/inference-node/testing';
import { r, summary } from './support.js';

setLogSink(() => undefined);
const REPS = Number(process.env['BENCH_REPS'] ?? 30);
const SECRET = 'bench-watermark-cost-secret';
const SENTENCE = 'Please call Stella and ask her to bring these things with her from the store.';
const PARAGRAPH =
  'The weather today is sunny with a light breeze, and the forecast for the weekend looks just as pleasant. ' +
  'Local farmers expect a good harvest this year, after a wet spring gave way to a warm and steady summer. ' +
  'In the town square, the market opens at eight in the morning and closes when the last stall has sold out.';
const out: Record<string, unknown> = { machine: { cpu: cpus()[0]?.model, cores: availableParallelism(), node: process.version }, date: new Date().toISOString(), reps: REPS };

// ---- the embedder alone ----
{
  const rows: Record<string, unknown>[] = [];
  for (const rate of [16_000, 22_050, 24_000, 48_000]) {
    const audio = new Float32Array(rate * 60);
    for (let i = 0; i < audio.length; i++) audio[i] = 0.1 * Math.sin(i * 0.01) * (Math.random() - 0.5);
    const runs: number[] = [];
    const builds: number[] = [];
    for (let k = 0; k < 8; k++) {
      let t = performance.now();
      const embedder = new WatermarkEmbedder({ secret: SECRET, payload: k * 7919, sampleRate: rate });
      builds.push(performance.now() - t);
      const copy = audio.slice();
      t = performance.now();
      // In place, as the node's pipeline marks each piece.
      for (let at = 0; at < copy.length; at += 4096) embedder.markInPlace(copy.subarray(at, at + 4096));
      runs.push((performance.now() - t) / 60);
      embedder.release();
    }
    rows.push({ rate, ms_per_audio_sec: r(summary(runs.slice(2)).p50, 4), pattern_build_ms: r(summary(builds.slice(2)).p50, 3) });
  }
  out['embedder'] = rows;
}

// ---- the mark's share of synthesis on a node ----
// The pipeline times the mark itself, so its share is measured directly rather than as the
// difference of two noisy timings: SynthesisStats.watermarkMs, marking the pieces (on the
// request's path), and watermarkSetupMs, building the request's pattern (while the engine renders
// the first piece on its worker thread or process; reported beside it, and in `all_pct` as if it
// were on the path).
{
  const node = await startNode({ host: '127.0.0.1', port: 0, nodeId: 'bench', festivalProcesses: 1, warmup: true });
  const deps: PipelineDeps = { ...node.context.deps, watermarkKey: { id: 1, secret: SECRET } };
  const job = (text: string, voice: string, streaming: boolean): SynthesisJob => ({
    requestId: 'bench', text, voice, engine: '', speed: 1, format: streaming ? 'pcm' : 'wav', sampleRate: 0, language: '', rawText: false, streaming, watermarkPayload: 0x1234abcd,
  });
  const rows: Record<string, unknown>[] = [];
  for (const voice of ['espeak:en-us', 'flite:kal16', 'flite:slt', 'festival:slt']) {
    const reps = voice.startsWith('festival') ? Math.ceil(REPS / 3) : REPS;
    for (const [label, text] of [['sentence', SENTENCE], ['paragraph', PARAGRAPH]] as const) {
      const totals: number[] = [];
      const marks: number[] = [];
      const setups: number[] = [];
      let audioSec = 0;
      for (let i = 0; i < reps + 3; i++) {
        const t = performance.now();
        const { stats } = await synthesizeWhole(planSynthesis(job(text, voice, false), deps), deps);
        if (i < 3) continue;
        totals.push(performance.now() - t);
        marks.push(stats.watermarkMs);
        setups.push(stats.watermarkSetupMs);
        audioSec = stats.audioSeconds;
      }
      const total = summary(totals).p50;
      const mark = summary(marks).p50;
      const setup = summary(setups).p50;
      rows.push({ voice, text: label, audio_sec: r(audioSec, 2), synthesis_ms_p50: r(total, 2), mark_ms_p50: r(mark, 3), mark_pct: r((mark / total) * 100, 2), setup_ms_p50: r(setup, 3), all_pct: r(((mark + setup) / total) * 100, 2) });
    }
    // First audio of a stream: the first piece out of the renderer, and the mark's time until then.
    const firsts: number[] = [];
    const marks: number[] = [];
    const setups: number[] = [];
    const engines: number[] = [];
    for (let i = 0; i < reps + 3; i++) {
      const stats: SynthesisStats = { characters: 0, sentences: 0, audioSeconds: 0, computeSeconds: 0, timeToFirstAudioMs: 0, queueMs: 0, encodeMs: 0, maxBatchSize: 1, watermarkMs: 0, watermarkSetupMs: 0, loadMs: 0 };
      const t = performance.now();
      const pieces = renderAudio(planSynthesis(job(PARAGRAPH, voice, true), deps), deps, stats);
      await pieces.next();
      const first = performance.now() - t;
      const mark = stats.watermarkMs;
      const setup = stats.watermarkSetupMs;
      const engine = stats.computeSeconds * 1000;
      await pieces.return(undefined);
      if (i < 3) continue;
      firsts.push(first);
      marks.push(mark);
      setups.push(setup);
      engines.push(engine);
    }
    const first = summary(firsts).p50;
    rows.push({
      voice, text: 'stream first piece', synthesis_ms_p50: r(first, 2), mark_ms_p50: r(summary(marks).p50, 3), mark_pct: r((summary(marks).p50 / first) * 100, 2),
      setup_ms_p50: r(summary(setups).p50, 3), all_pct: r(((summary(marks).p50 + summary(setups).p50) / first) * 100, 2), first_piece_engine_ms_p50: r(summary(engines).p50, 2),
    });
  }
  out['synthesis'] = rows;
  await node.stop(2000);
}

console.log(JSON.stringify(out, null, 2));
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(new URL('./results/watermark-cost.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
