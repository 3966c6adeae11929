/**
 * Foundation benchmark (issue 2): per engine and voice, real-time factor and time to first audio
 * (sentence and paragraph); flite engine vs a direct library call; facade + gRPC overhead over the
 * in-process pipeline (p50/p99); requests/s at concurrency 1/8/32 for a short sentence.
 * Writes bench/results/foundation.json and prints a Markdown summary.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { callUnary, synthesizerClient } from '../services/common/src/grpc/clients.js';
import { AudioEncoding } from '../gen/tts/v1/synthesis.js';
import { fliteDirectSynthesize } from '../services/inference-node/src/engines/flite/index.js';
import { planSynthesis, synthesizeStreaming, synthesizeWhole } from '../services/inference-node/src/domain/pipeline.js';
import { prepareText } from '../services/common/src/text/index.js';
import { postJson, startPlatform } from '../tests/support/platform.js';
import { load, r, summary } from './support.js';

const SENTENCE = 'Please call Stella and ask her to bring these things with her from the store.';
const PARAGRAPH =
  'The weather today is sunny with a light breeze, and the forecast for the weekend looks just as pleasant. ' +
  'Local farmers expect a good harvest this year, after a wet spring gave way to a warm and steady summer. ' +
  'In the town square, the market opens at eight in the morning and closes when the last stall has sold out. ' +
  'Visitors are advised to arrive early, bring their own bags, and try the fresh bread from the bakery on the corner.';
const SHORT = 'Hello world.';
const REPS = Number(process.env['BENCH_REPS'] ?? 5);

const platform = await startPlatform({ node: { festivalProcesses: 2 } });
const node = platform.nodes[0]!;
const deps = node.context.deps;
const out: Record<string, unknown> = {
  machine: { cpus: cpus()[0]?.model, cores: availableParallelism(), node: process.version },
  date: new Date().toISOString(),
};

function job(text: string, voice: string, format: 'wav' | 'pcm' = 'wav') {
  return { requestId: 'bench', text, voice, engine: '', speed: 1, format, sampleRate: 0, language: '', rawText: false };
}

// 1. Engines: RTF (compute / audio) and time to first encoded audio of the streamed text.
const voices = ['festival:slt', 'flite:slt', 'flite:rms', 'flite:awb', 'flite:kal16', 'espeak:en-us'];
const engineRows: Record<string, unknown>[] = [];
for (const voice of voices) {
  for (const [label, text] of [['sentence', SENTENCE], ['paragraph', PARAGRAPH]] as const) {
    const rtfs: number[] = [];
    const ttfas: number[] = [];
    let audioSec = 0;
    for (let i = 0; i < REPS; i++) {
      const whole = await synthesizeWhole(planSynthesis(job(text, voice), deps), deps);
      rtfs.push(whole.stats.computeSeconds / whole.stats.audioSeconds);
      audioSec = whole.stats.audioSeconds;
      const started = performance.now();
      const stream = synthesizeStreaming(planSynthesis(job(text, voice, 'pcm'), deps), deps);
      let first = 0;
      for await (const _chunk of stream) if (first === 0) first = performance.now() - started;
      ttfas.push(first);
    }
    engineRows.push({ voice, text: label, audio_sec: r(audioSec), rtf_p50: r(summary(rtfs).p50, 4), ttfa_ms_p50: r(summary(ttfas).p50, 1) });
  }
}
out['engines'] = engineRows;

// 2. flite engine (worker pool, per sentence) vs libflite called directly on this thread.
{
  const chunks = prepareText(PARAGRAPH);
  const flite = deps.registry.resolve('flite:slt').engine;
  const engineTimes: number[] = [];
  const directTimes: number[] = [];
  let audioSec = 0;
  for (let i = 0; i < REPS * 2; i++) {
    let t = performance.now();
    let samples = 0;
    for (const text of chunks) samples += (await flite.synthesize([{ text, voice: 'flite:slt', speed: 1 }]))[0]!.audio.samples.length;
    engineTimes.push((performance.now() - t) / 1000);
    audioSec = samples / 16000;
    t = performance.now();
    for (const text of chunks) fliteDirectSynthesize(text, 'slt');
    directTimes.push((performance.now() - t) / 1000);
  }
  const engineRtf = summary(engineTimes).p50 / audioSec;
  const directRtf = summary(directTimes).p50 / audioSec;
  out['flite_vs_direct'] = { audio_sec: r(audioSec), engine_rtf: r(engineRtf, 4), direct_rtf: r(directRtf, 4), engine_over_direct: r(engineRtf / directRtf, 3) };
}

// 3. Overhead of facade + gRPC over the in-process pipeline (flite:slt, short sentence, WAV), interleaved.
{
  const client = synthesizerClient(node.address);
  const grpcReq = { requestId: 'bench', text: SHORT, voice: 'flite:slt', engine: '', speed: 1, encoding: AudioEncoding.AUDIO_ENCODING_WAV, sampleRate: 0, tenantId: '', language: '', instructions: '', rawText: false };
  const inproc: number[] = [];
  const grpc: number[] = [];
  const rest: number[] = [];
  const N = Number(process.env['BENCH_OVERHEAD_N'] ?? 300);
  for (let i = 0; i < 20; i++) await postJson(`${platform.url}/api/tts`, { text: SHORT, voice: 'flite:slt' }).then((x) => x.arrayBuffer());
  for (let i = 0; i < N; i++) {
    let t = performance.now();
    await synthesizeWhole(planSynthesis(job(SHORT, 'flite:slt'), deps), deps);
    inproc.push(performance.now() - t);
    t = performance.now();
    await callUnary(client.synthesize.bind(client), grpcReq);
    grpc.push(performance.now() - t);
    t = performance.now();
    const res = await postJson(`${platform.url}/api/tts`, { text: SHORT, voice: 'flite:slt' });
    await res.arrayBuffer();
    rest.push(performance.now() - t);
  }
  const a = summary(inproc);
  const b = summary(grpc);
  const c = summary(rest);
  out['overhead_ms'] = {
    in_process: { p50: r(a.p50), p99: r(a.p99) },
    grpc_direct: { p50: r(b.p50), p99: r(b.p99) },
    rest_facade: { p50: r(c.p50), p99: r(c.p99) },
    grpc_over_in_process_p50: r(b.p50 - a.p50),
    rest_over_in_process_p50: r(c.p50 - a.p50),
    rest_over_grpc_p50: r(c.p50 - b.p50),
  };
}

// 4. Throughput at concurrency 1/8/32, short sentence, REST.
const throughput: Record<string, unknown>[] = [];
for (const voice of ['flite:slt', 'festival:slt']) {
  for (const c of [1, 8, 32]) {
    const total = Math.max(40, c * 6);
    const { latencies, wallMs } = await load(c, total, async () => {
      const res = await postJson(`${platform.url}/api/tts`, { text: SHORT, voice });
      if (res.status !== 200) throw new Error(`status ${res.status}`);
      await res.arrayBuffer();
    });
    const s = summary(latencies);
    throughput.push({ voice, concurrency: c, requests: total, rps: r((total / wallMs) * 1000, 1), p50_ms: r(s.p50, 1), p99_ms: r(s.p99, 1) });
  }
}
out['throughput'] = throughput;

// 5. Time to first audio through the OpenAI streaming endpoint (paragraph, pcm).
const ttfaRest: Record<string, unknown>[] = [];
for (const voice of ['festival:slt', 'flite:slt', 'espeak:en-us']) {
  const firsts: number[] = [];
  for (let i = 0; i < REPS; i++) {
    const t = performance.now();
    const res = await postJson(`${platform.url}/v1/audio/speech`, { model: 'tts-1', input: PARAGRAPH, voice, response_format: 'pcm' });
    const reader = res.body!.getReader();
    let first = 0;
    for (;;) {
      const { done } = await reader.read();
      if (first === 0) first = performance.now() - t;
      if (done) break;
    }
    firsts.push(first);
  }
  ttfaRest.push({ voice, first_chunk_ms_p50: r(summary(firsts).p50, 1), first_chunk_ms_max: r(Math.max(...firsts), 1) });
}
out['ttfa_rest_stream'] = ttfaRest;

await platform.stop();
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(new URL('./results/foundation.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(JSON.stringify(out, null, 2));
