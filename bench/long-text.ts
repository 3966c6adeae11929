/**
 * Long text against the bare engine (issue 14, item 3): a paragraph through `POST
 * /v1/audio/speech` (wav, flite:slt) on the launched platform, with its internal gRPC over TCP and
 * over Unix domain sockets (two platforms up at once), against the same text through libflite
 * called directly in this process. Requests are interleaved (direct, tcp, unix, in a rotating
 * order) so the machine's load falls on all three alike; the node's pipeline alone (an in-process
 * node, the same streamed wav) tells the node's share from the transport's. Reports p50 latency and
 * the ratio to the direct call; and, for scale, a short text ("Hello world.") over each transport.
 * A third platform renders one sentence at a time (TTS_SENTENCES_IN_FLIGHT=1, the former pipeline),
 * and the in-process pipeline runs both ways, for the before/after of rendering sentences side by side.
 * Writes bench/results/long-text.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { setLogSink } from '@tts/common';
import { fliteDirectSynthesize, planSynthesis, synthesizeStreaming, type SynthesisJob } from '@tts/inference-node/testing';
import { start as startNode } from '@tts/inference-node';
import { launchPlatform, post, type LaunchedPlatform } from './platform.js';
import { r, summary } from './support.js';

setLogSink(() => undefined);
const PARAGRAPH =
  'The weather today is sunny with a light breeze, and the forecast for the weekend looks just as pleasant. ' +
  'Local farmers expect a good harvest this year, after a wet spring gave way to a warm and steady summer. ' +
  'In the town square, the market opens at eight in the morning and closes when the last stall has sold out. ' +
  'Visitors are advised to arrive early, bring their own bags, and try the fresh bread from the bakery on the corner.';
const N = Number(process.env['BENCH_LONG_N'] ?? 40);
const env = { TTS_NODES: '1', TTS_ENGINES: 'flite', TTS_DEFAULT_VOICE: 'flite:slt', METRICS_PORT: '0' };
const out: Record<string, unknown> = {
  machine: { cpu: cpus()[0]?.model, cores: availableParallelism(), node: process.version, loadavg_start: loadavg().map((x) => r(x)) },
  date: new Date().toISOString(),
  text_chars: PARAGRAPH.length,
};

const tcp = await launchPlatform({ ...env, TTS_INTERNAL_TRANSPORT: 'tcp' }, 4);
const unix = await launchPlatform({ ...env, TTS_INTERNAL_TRANSPORT: 'unix' }, 4);
// Before sentences rendered side by side: one at a time (TTS_SENTENCES_IN_FLIGHT=1).
const sequential = await launchPlatform({ ...env, TTS_INTERNAL_TRANSPORT: 'unix', TTS_SENTENCES_IN_FLIGHT: '1' }, 4);
const body = { model: 'tts-1', input: PARAGRAPH, voice: 'flite:slt', response_format: 'wav' };

const node = await startNode({ host: '127.0.0.1', port: 0, nodeId: 'bench-long', engines: ['flite'], defaultVoice: 'flite:slt', warmup: true });
const job: SynthesisJob = { requestId: 'bench', text: PARAGRAPH, voice: 'flite:slt', engine: '', speed: 1, format: 'wav', sampleRate: 0, language: '', rawText: false, streaming: true };

/** One request: client latency, ms, and the body's size. */
async function speak(p: LaunchedPlatform, input = PARAGRAPH): Promise<{ ms: number; bytes: number }> {
  const t = performance.now();
  const res = await post(p, '/v1/audio/speech', { ...body, input });
  const ms = performance.now() - t;
  if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
  return { ms, bytes: res.bytes };
}

/** The node's pipeline alone, in this process: the paragraph as streamed wav, ms. */
async function pipeline(sentencesInFlight?: number): Promise<number> {
  const deps = sentencesInFlight === undefined ? node.context.deps : { ...node.context.deps, sentencesInFlight };
  const t = performance.now();
  for await (const _bytes of synthesizeStreaming(planSynthesis(job, deps), deps));
  return performance.now() - t;
}

/** The bare library: the whole paragraph through libflite in this process, ms. */
function direct(): { ms: number; samples: number } {
  const t = performance.now();
  const audio = fliteDirectSynthesize(PARAGRAPH, 'slt');
  return { ms: performance.now() - t, samples: audio.samples.length };
}

try {
  for (let i = 0; i < 5; i++) {
    direct();
    await speak(tcp);
    await speak(unix);
    await speak(sequential);
    await pipeline();
  }
  const times = { direct: [] as number[], pipeline: [] as number[], pipelineSequential: [] as number[], tcp: [] as number[], unix: [] as number[], sequential: [] as number[], tcpShort: [] as number[], unixShort: [] as number[] };
  let bytes = 0;
  let samples = 0;
  const steps: Array<() => Promise<void>> = [
    async () => {
      const d = direct();
      times.direct.push(d.ms);
      samples = d.samples;
    },
    async () => {
      const x = await speak(tcp);
      times.tcp.push(x.ms);
      bytes = x.bytes;
    },
    async () => {
      const x = await speak(unix);
      times.unix.push(x.ms);
    },
    async () => {
      times.sequential.push((await speak(sequential)).ms);
    },
    async () => {
      times.pipeline.push(await pipeline());
    },
    async () => {
      times.pipelineSequential.push(await pipeline(1));
    },
    async () => {
      for (let j = 0; j < 3; j++) {
        times.tcpShort.push((await speak(tcp, 'Hello world.')).ms);
        times.unixShort.push((await speak(unix, 'Hello world.')).ms);
      }
    },
  ];
  for (let i = 0; i < N; i++) for (let k = 0; k < steps.length; k++) await steps[(i + k) % steps.length]!();
  const d = summary(times.direct).p50;
  const row = (xs: number[]): Record<string, number> => ({ p50_ms: r(summary(xs).p50), p95_ms: r(summary(xs).p95), over_direct: r(summary(xs).p50 / d, 3) });
  out['direct'] = { p50_ms: r(d), p95_ms: r(summary(times.direct).p95), audio_sec: r(samples / 16_000) };
  out['node_pipeline'] = row(times.pipeline);
  out['node_pipeline_one_sentence_at_a_time'] = row(times.pipelineSequential);
  out['unix_one_sentence_at_a_time'] = row(times.sequential);
  out['tcp'] = row(times.tcp);
  out['unix'] = row(times.unix);
  out['short_text'] = { tcp_p50_ms: r(summary(times.tcpShort).p50), unix_p50_ms: r(summary(times.unixShort).p50), n: times.tcpShort.length };
  out['wav_bytes'] = bytes;
  out['n'] = N;
} finally {
  await tcp.stop();
  await unix.stop();
  await sequential.stop();
  await node.stop(2000);
}
out['machine'] = { ...(out['machine'] as object), loadavg_end: loadavg().map((x) => r(x)) };
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/long-text.json', `${JSON.stringify(out, null, 2)}\n`);
console.log(JSON.stringify(out, null, 2));
