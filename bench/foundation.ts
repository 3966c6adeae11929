/**
 * Foundation benchmark (issue 2).
 * In-process (engine level): real-time factor and time to first encoded audio per engine and voice
 * (sentence, paragraph); the flite engine against a direct libflite call.
 * Against the real multi-process platform (launcher: scheduler, node, facade as processes, a
 * keep-alive HTTP client in this process): facade + gRPC overhead = client latency minus the
 * node-side wall time the node reports (Server-Timing), for REST and for gRPC straight to the node;
 * requests/s at concurrency 1/8/32; first streamed chunk of a paragraph through /v1/audio/speech.
 * Writes bench/results/foundation.json.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import postgres from 'postgres';
import { AudioEncoding } from '@tts/proto/synthesis';
import { callUnary, closeAllClients, schedulerClient, synthesizerClient, setLogSink } from '@tts/common';
import {
  prepareText,
  planSynthesis,
  synthesizeStreaming,
  synthesizeWhole,
  type SynthesisJob,
  fliteDirectSynthesize,
} from '@tts/inference-node/testing';
import { start as startNode } from '@tts/inference-node';
import { launchPlatform, post, postFirstByte, serverTiming, type LaunchedPlatform } from './platform.js';
import { load, r, summary } from './support.js';

setLogSink(() => undefined);
const SENTENCE = 'Please call Stella and ask her to bring these things with her from the store.';
const PARAGRAPH =
  'The weather today is sunny with a light breeze, and the forecast for the weekend looks just as pleasant. ' +
  'Local farmers expect a good harvest this year, after a wet spring gave way to a warm and steady summer. ' +
  'In the town square, the market opens at eight in the morning and closes when the last stall has sold out. ' +
  'Visitors are advised to arrive early, bring their own bags, and try the fresh bread from the bakery on the corner.';
const SHORT = 'Hello world.';
const REPS = Number(process.env['BENCH_REPS'] ?? 5);
const out: Record<string, unknown> = {
  machine: { cpu: cpus()[0]?.model, cores: availableParallelism(), node: process.version, loadavg_start: loadavg().map((x) => r(x)) },
  date: new Date().toISOString(),
};

// ---- engine level, in-process ----
{
  const node = await startNode({ host: '127.0.0.1', port: 0, nodeId: 'bench', festivalProcesses: 2, warmup: true });
  const deps = node.context.deps;
  const job = (text: string, voice: string, streaming: boolean): SynthesisJob => ({
    requestId: 'bench', text, voice, engine: '', speed: 1, format: streaming ? 'pcm' : 'wav', sampleRate: 0, language: '', rawText: false, streaming,
  });
  const rows: Record<string, unknown>[] = [];
  for (const voice of ['festival:slt', 'flite:slt', 'flite:rms', 'flite:awb', 'flite:kal16', 'espeak:en-us']) {
    for (const [label, text] of [['sentence', SENTENCE], ['paragraph', PARAGRAPH]] as const) {
      const rtfs: number[] = [];
      const ttfas: number[] = [];
      let audioSec = 0;
      for (let i = 0; i < REPS; i++) {
        const whole = await synthesizeWhole(planSynthesis(job(text, voice, false), deps), deps);
        rtfs.push(whole.stats.computeSeconds / whole.stats.audioSeconds);
        audioSec = whole.stats.audioSeconds;
        const t = performance.now();
        let first = 0;
        for await (const _chunk of synthesizeStreaming(planSynthesis(job(text, voice, true), deps), deps)) if (first === 0) first = performance.now() - t;
        ttfas.push(first);
      }
      rows.push({ voice, text: label, audio_sec: r(audioSec), rtf_p50: r(summary(rtfs).p50, 4), stream_first_audio_ms_p50: r(summary(ttfas).p50, 1) });
    }
  }
  out['engines'] = rows;

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
  await node.stop(2000);
}

// ---- the real platform, separate processes ----

/** Facade + gRPC overhead on a launched platform: REST and gRPC straight to the node, interleaved. */
async function measureOverhead(p: LaunchedPlatform): Promise<Record<string, unknown>> {
  const scheduler = schedulerClient(p.schedulerAddress, { kind: 'internal', token: p.internalToken });
  const nodes = await callUnary(scheduler.listNodes.bind(scheduler), {});
  const client = synthesizerClient(nodes.nodes[0]!.status!.address);
  const grpcReq = { requestId: 'bench', tenantId: '', tenantWeight: 0, speech: { text: SHORT, voice: 'flite:slt', engine: '', speed: 1, encoding: AudioEncoding.AUDIO_ENCODING_WAV, sampleRate: 0, language: '', instructions: '', rawText: false, watermarkPayload: 0, clone: undefined, wordTimings: false, bitrateKbps: 0, lexicon: [] } };
  const N = Number(process.env['BENCH_OVERHEAD_N'] ?? 300);
  for (let i = 0; i < 50; i++) {
    await post(p, '/api/tts', { text: SHORT, voice: 'flite:slt' });
    await callUnary(client.synthesize.bind(client), grpcReq);
  }
  const rest: number[] = [];
  const restOver: number[] = [];
  const split = { http: [] as number[], facade: [] as number[], grpc: [] as number[] };
  const grpc: number[] = [];
  const grpcOver: number[] = [];
  for (let i = 0; i < N; i++) {
    let t = performance.now();
    const res = await post(p, '/api/tts', { text: SHORT, voice: 'flite:slt' });
    const restMs = performance.now() - t;
    rest.push(restMs);
    restOver.push(restMs - serverTiming(res.headers, 'node'));
    split.http.push(restMs - serverTiming(res.headers, 'total'));
    split.facade.push(serverTiming(res.headers, 'total') - serverTiming(res.headers, 'grpc'));
    split.grpc.push(serverTiming(res.headers, 'grpc') - serverTiming(res.headers, 'node'));
    t = performance.now();
    const g = await callUnary(client.synthesize.bind(client), grpcReq);
    const grpcMs = performance.now() - t;
    grpc.push(grpcMs);
    grpcOver.push(grpcMs - (g.metrics?.nodeMs ?? Number.NaN));
  }
  return {
    note: 'client latency minus node-side wall time (Server-Timing node / metrics.node_ms); flite:slt, "Hello world.", WAV; 40 API keys in turn',
    rest_latency: { p50: r(summary(rest).p50), p99: r(summary(rest).p99) },
    rest_overhead: { p50: r(summary(restOver).p50), p95: r(summary(restOver).p95), p99: r(summary(restOver).p99) },
    grpc_direct_latency: { p50: r(summary(grpc).p50), p99: r(summary(grpc).p99) },
    grpc_direct_overhead: { p50: r(summary(grpcOver).p50), p95: r(summary(grpcOver).p95), p99: r(summary(grpcOver).p99) },
    facade_added_p50: r(summary(restOver).p50 - summary(grpcOver).p50),
    rest_overhead_split_p50: {
      note: 'from Server-Timing: HTTP = client latency - facade total; facade = total - its gRPC call; gRPC = that call - node time',
      http: r(summary(split.http).p50),
      facade: r(summary(split.facade).p50),
      grpc: r(summary(split.grpc).p50),
    },
  };
}

{
  const p = await launchPlatform({ TTS_NODES: '1', TTS_FESTIVAL_PROCESSES: '2' });
  out['overhead_ms'] = await measureOverhead(p);

  const throughput: Record<string, unknown>[] = [];
  for (const voice of ['flite:slt', 'festival:slt']) {
    for (const c of [1, 8, 32]) {
      const total = Math.max(60, c * 8);
      const { latencies, wallMs } = await load(c, total, async () => {
        const res = await post(p, '/api/tts', { text: SHORT, voice });
        if (res.status !== 200) throw new Error(`status ${res.status}`);
      });
      const s = summary(latencies);
      throughput.push({ voice, concurrency: c, requests: total, rps: r((total / wallMs) * 1000, 1), p50_ms: r(s.p50, 1), p99_ms: r(s.p99, 1) });
    }
  }
  out['throughput'] = throughput;

  const ttfa: Record<string, unknown>[] = [];
  const ttfaReps = Number(process.env['BENCH_TTFA_REPS'] ?? 15);
  for (const voice of ['festival:slt', 'flite:slt', 'espeak:en-us']) {
    // The first request after start-up is reported apart from the warm figures.
    const cold = await postFirstByte(p, '/v1/audio/speech', { model: 'tts-1', input: PARAGRAPH, voice, response_format: 'pcm' });
    await postFirstByte(p, '/v1/audio/speech', { model: 'tts-1', input: PARAGRAPH, voice, response_format: 'pcm' });
    const firsts: number[] = [];
    const totals: number[] = [];
    for (let i = 0; i < ttfaReps; i++) {
      const x = await postFirstByte(p, '/v1/audio/speech', { model: 'tts-1', input: PARAGRAPH, voice, response_format: 'pcm' });
      firsts.push(x.firstMs);
      totals.push(x.totalMs);
    }
    ttfa.push({
      voice,
      requests: ttfaReps,
      first_chunk_ms_p50: r(summary(firsts).p50, 1),
      first_chunk_ms_p95: r(summary(firsts).p95, 1),
      first_chunk_ms_max: r(Math.max(...firsts), 1),
      first_request_first_chunk_ms: r(cold.firstMs, 1),
      whole_paragraph_ms_p50: r(summary(totals).p50, 1),
    });
  }
  out['stream_first_chunk_rest'] = ttfa;
  closeAllClients();
  await p.stop();
}

// The same overhead with the facade on PostgreSQL and Redis (how a multi-replica deployment runs).
const databaseUrl = process.env['BENCH_DATABASE_URL'] ?? process.env['TEST_DATABASE_URL'];
const redisUrl = process.env['BENCH_REDIS_URL'] ?? process.env['TEST_REDIS_URL'];
if (databaseUrl !== undefined && redisUrl !== undefined) {
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const p = await launchPlatform({ TTS_NODES: '1', TTS_FESTIVAL_PROCESSES: '1', DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, TTS_DB_SCHEMA: schema, TTS_KV_PREFIX: schema });
  out['overhead_ms_postgres_redis'] = await measureOverhead(p);
  closeAllClients();
  await p.stop();
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => undefined });
  await sql.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await sql.end();
}

out['loadavg_end'] = loadavg().map((x) => r(x));
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(new URL('./results/foundation.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(JSON.stringify(out, null, 2));
