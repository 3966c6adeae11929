/**
 * Dynamic batching benchmark (issue 5): the piper engine on the heavy fixture voice (a Conv1d stack
 * over frames whose cost grows with the input like a VITS decoder's), on the CPU provider.
 *
 * 1. Model level: one session call per batch of B identical utterances (no padding): the most any
 *    batching can save per item on this CPU.
 * 2. The curve: in-process inference nodes (the registry's piper factory, real espeak-ng
 *    phonemes, admission, pipeline, WAV encoding), one per max_batch_size 1, 2, 4, 8, 16, at
 *    concurrency 1, 4, 16 (closed loop: each client sends its next sentence when the last one
 *    returned), max_queue_delay_ms 0, for two thread layouts: onnxruntime's default (one intra-op
 *    thread per core, one batch at a time) and one thread per batch with two batches at once.
 *    The machine is shared, so bursts alternate between the batch sizes in rotated order,
 *    BENCH_ROUNDS times (default 4): load from other processes hits every setting alike.
 *    Throughput is requests over summed burst time; latency percentiles are over every request.
 * 3. Batcher overhead at concurrency 1 with max_queue_delay_ms 0: the same utterance through
 *    `DynamicBatcher.submit` and through a direct `PiperModel.infer`, alternated, on the heavy
 *    and on the tiny fixture (whose millisecond runs let machine noise hide less); and the batcher
 *    alone around a no-op model call.
 * 4. Operator level, to show where batching pays on a CPU: per-item cost of a stack of six Conv1d
 *    (k=3) layers and of six MatMul layers (384 channels each, random weights), for short (30
 *    frames) and long (300 frames) items, at batch 1, 4 and 16.
 * Writes bench/results/batching.json and prints a Markdown table.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import ort from 'onnxruntime-node';
import { HEAVY_FIXTURE, makePiperFixtures } from '@tts/fixtures';
import { GraphBuilder } from '@tts/fixtures/onnx-builder';
import { setLogSink } from '@tts/common';
import {
  DynamicBatcher,
  planSynthesis,
  synthesizeWhole,
  type SynthesisJob,
  createEspeakPhonemizer,
  PiperModel,
  phonemesToIds,
  readPiperConfig,
  splitPhonemes,
  startOnnxRunner,
  type PiperEngine,
  type PiperUtterance,
} from '@tts/inference-node/testing';
import { start as startNode } from '@tts/inference-node';
import { load, r, summary } from './support.js';

setLogSink(() => undefined);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 4);
const BATCH_SIZES = [1, 2, 4, 8, 16] as const;
const CONCURRENCY = [1, 4, 16] as const;
/** Requests per burst (one burst per batch size and round). */
const REQUESTS: Record<(typeof CONCURRENCY)[number], number> = { 1: 12, 4: 32, 16: 96 };
const LAYOUTS = [
  { name: 'intra-op threads 0 (one per core), 1 batch at a time', intraOpThreads: 0, concurrentBatches: 1 },
  { name: 'intra-op threads 1, 2 batches at a time', intraOpThreads: 1, concurrentBatches: 2 },
] as const;
/** Sentences of ordinary lengths (25 to 130 characters), cycled through by the clients. */
const SENTENCES = [
  'The weather today is sunny with a light breeze.',
  'Please call Stella and ask her to bring these things with her from the store.',
  'Local farmers expect a good harvest this year.',
  'In the town square, the market opens at eight in the morning and closes when the last stall has sold out.',
  'Visitors are advised to arrive early.',
  'Try the fresh bread from the bakery on the corner.',
  'The forecast for the weekend looks just as pleasant, with clear skies and mild temperatures across the region.',
  'A wet spring gave way to a warm and steady summer.',
  'Thank you for calling.',
  'Your package will arrive on Tuesday between nine and eleven in the morning, so please make sure someone is at home.',
  'The meeting has been moved to the second floor.',
  'Turn left at the next intersection, then continue straight for about two hundred meters.',
  'Good morning!',
  'The library will be closed on Monday for maintenance, and all books due that day may be returned on Tuesday without a fine.',
  'She sells sea shells by the sea shore.',
  'Remember to save your work before you leave.',
] as const;

const VOICE = 'piper:en_US-fixture_heavy-medium';
const out: Record<string, unknown> = {
  machine: { cpu: cpus()[0]?.model, cores: availableParallelism(), node: process.version, loadavg_start: loadavg().map((x) => r(x)) },
  date: new Date().toISOString(),
  fixture: { voice: VOICE, ...HEAVY_FIXTURE, provider: 'cpu' },
  settings: { rounds: ROUNDS, max_queue_delay_ms: 0, requests_per_burst: REQUESTS, sentences: SENTENCES.length },
};

const root = await mkdtemp(path.join(tmpdir(), 'bench-batching-'));
const fixtures = await makePiperFixtures(root, { heavy: true });
const heavy = fixtures.heavy!;
const heavyConfig = await readPiperConfig(heavy);
const phonemizer = createEspeakPhonemizer();
/** Piper ids of a typical sentence (about 60 phonemes). */
const typical: PiperUtterance = {
  ids: phonemesToIds(splitPhonemes((await phonemizer.phonemize(SENTENCES[1], 'en-us'))[0]!), heavyConfig.phonemeIdMap).ids,
  sid: 0,
};
const scales = { noiseScale: heavyConfig.noiseScale, lengthScale: heavyConfig.lengthScale, noiseW: heavyConfig.noiseW };

async function openHeavy(intraOpThreads: number): Promise<{ model: PiperModel; close: () => Promise<void> }> {
  const runner = await startOnnxRunner([heavy.onnxPath], { intraOpThreads, executionProviders: ['cpu'] });
  const session = runner.sessions[0]!;
  if (session instanceof Error) throw session;
  return { model: new PiperModel(heavy, heavyConfig, session), close: () => runner.close() };
}

/** Rotates `list` by `by` places, so that each setting takes every position in turn. */
function rotated<T>(list: readonly T[], by: number): T[] {
  return list.map((_, i) => list[(i + by) % list.length]!);
}

// ---- 1. model level: per-item cost of a batch of equal utterances ----
{
  const rows: Record<string, unknown>[] = [];
  for (const intraOpThreads of [0, 1]) {
    const { model, close } = await openHeavy(intraOpThreads);
    for (let i = 0; i < 5; i++) await model.infer([typical], scales);
    const perItem = new Map<number, number[]>(BATCH_SIZES.map((b) => [b, []]));
    // Batch sizes interleaved, round after round: load from other processes hits each alike.
    for (let round = 0; round < 8; round++) {
      for (const b of rotated(BATCH_SIZES, round)) {
        const batch = Array.from({ length: b }, () => typical);
        for (let i = 0; i < Math.max(1, Math.round(8 / b)); i++) {
          const t = performance.now();
          await model.infer(batch, scales);
          perItem.get(b)!.push((performance.now() - t) / b);
        }
      }
    }
    for (const b of BATCH_SIZES) {
      const ms = summary(perItem.get(b)!).p50;
      rows.push({ intra_op_threads: intraOpThreads, batch: b, ids: typical.ids.length, per_item_ms_p50: r(ms, 2), batch_ms: r(ms * b, 1) });
    }
    await close();
  }
  out['model_level'] = rows;
}

// ---- 2. the curve through in-process nodes ----
interface Cell {
  layout: string;
  max_batch_size: number;
  concurrency: number;
  requests: number;
  throughput_rps: number;
  p50_ms: number;
  p95_ms: number;
  mean_batch: number;
}
{
  const curve: Cell[] = [];
  const target: Record<string, unknown>[] = [];
  for (const layout of LAYOUTS) {
    // One node per batch size, all up at once; bursts alternate between them (rotated order).
    const nodes = new Map<number, Awaited<ReturnType<typeof startNode>>>();
    for (const mb of BATCH_SIZES) {
      nodes.set(mb, await startNode({
        host: '127.0.0.1', port: 0, nodeId: `bench-batching-${mb}`, engines: ['piper'], defaultVoice: VOICE, modelDirs: [root],
        piperMaxBatchSize: mb, piperMaxQueueDelayMs: 0, piperMaxQueue: 4096, maxQueue: 4096, warmup: true,
        piperIntraOpThreads: layout.intraOpThreads, piperConcurrentBatches: layout.concurrentBatches, vadTrim: false,
      }));
    }
    const burst = async (mb: number, c: number, total: number): Promise<{ latencies: number[]; wallMs: number; items: number; batches: number }> => {
      const deps = nodes.get(mb)!.context.deps;
      const engine = deps.registry.resolve(VOICE).engine as PiperEngine;
      let next = 0;
      const one = async (): Promise<void> => {
        const text = SENTENCES[next++ % SENTENCES.length]!;
        const job: SynthesisJob = { requestId: 'bench', text, voice: VOICE, engine: '', speed: 1, format: 'wav', sampleRate: 0, language: '', rawText: false };
        await synthesizeWhole(planSynthesis(job, deps), deps);
      };
      const before = engine.stats().batcher;
      const { latencies, wallMs } = await load(c, total, one);
      const after = engine.stats().batcher;
      return { latencies, wallMs, items: after.items - before.items, batches: after.batches - before.batches };
    };
    for (const mb of BATCH_SIZES) await burst(mb, 16, 32);
    for (const c of CONCURRENCY) {
      const cells = new Map<number, { latencies: number[]; wallMs: number; items: number; batches: number; rps: number[] }>(
        BATCH_SIZES.map((mb) => [mb, { latencies: [], wallMs: 0, items: 0, batches: 0, rps: [] }]),
      );
      for (let round = 0; round < ROUNDS; round++) {
        for (const mb of rotated(BATCH_SIZES, round)) {
          const b = await burst(mb, c, REQUESTS[c]);
          const cell = cells.get(mb)!;
          cell.latencies.push(...b.latencies);
          cell.wallMs += b.wallMs;
          cell.items += b.items;
          cell.batches += b.batches;
          cell.rps.push((REQUESTS[c] / b.wallMs) * 1000);
        }
      }
      for (const mb of BATCH_SIZES) {
        const cell = cells.get(mb)!;
        const s = summary(cell.latencies);
        curve.push({
          layout: layout.name, max_batch_size: mb, concurrency: c, requests: cell.latencies.length,
          throughput_rps: r((cell.latencies.length / cell.wallMs) * 1000, 1), p50_ms: r(s.p50, 1), p95_ms: r(s.p95, 1),
          mean_batch: r(cell.items / Math.max(1, cell.batches), 2),
        });
      }
      if (c === 16) {
        // The target: the best batched setting against max_batch_size 1, round by round (same minutes of machine load).
        const base = cells.get(1)!;
        const baseCell = curve.find((x) => x.layout === layout.name && x.concurrency === 16 && x.max_batch_size === 1)!;
        const batched = curve.filter((x) => x.layout === layout.name && x.concurrency === 16 && x.max_batch_size > 1);
        const best = batched.sort((a, b) => b.throughput_rps - a.throughput_rps)[0]!;
        const ratios = cells.get(best.max_batch_size)!.rps.map((rps, i) => rps / base.rps[i]!);
        const ratio = best.throughput_rps / baseCell.throughput_rps;
        target.push({
          layout: layout.name,
          baseline: { max_batch_size: 1, throughput_rps: baseCell.throughput_rps, p95_ms: baseCell.p95_ms },
          best_batched: { max_batch_size: best.max_batch_size, throughput_rps: best.throughput_rps, p95_ms: best.p95_ms, mean_batch: best.mean_batch },
          throughput_ratio: r(ratio, 2),
          throughput_ratio_per_round: ratios.map((x) => r(x, 2)),
          p95_ratio: r(best.p95_ms / baseCell.p95_ms, 2),
          met: ratio >= 1.5 && summary(ratios).p50 >= 1.5 && best.p95_ms <= 2 * baseCell.p95_ms,
        });
      }
    }
    for (const node of nodes.values()) await node.stop();
  }
  out['curve'] = curve;
  out['target_throughput_1_5x_at_c16'] = target;
}

// ---- 3. batcher overhead at concurrency 1, max_queue_delay_ms 0 ----
{
  /**
   * The same utterance through `DynamicBatcher.submit` and through a direct `PiperModel.infer`,
   * alternated (which goes first flips every time, so drift in machine load hits both alike).
   */
  const paired = async (voice: typeof heavy, reps: number): Promise<Record<string, number>> => {
    const config = await readPiperConfig(voice);
    const runner = await startOnnxRunner([voice.onnxPath], { intraOpThreads: 0, executionProviders: ['cpu'] });
    const session = runner.sessions[0]!;
    if (session instanceof Error) throw session;
    const model = new PiperModel(voice, config, session);
    const utterance: PiperUtterance = { ids: phonemesToIds(splitPhonemes((await phonemizer.phonemize(SENTENCES[1], 'en-us'))[0]!), config.phonemeIdMap).ids, sid: 0 };
    const batcher = new DynamicBatcher<PiperUtterance, Float32Array>({ maxBatchSize: 8, maxQueueDelayMs: 0, maxQueue: 64, run: (batch) => model.infer(batch, scales) });
    for (let i = 0; i < 10; i++) {
      await model.infer([utterance], scales);
      await batcher.submit(utterance);
    }
    const direct: number[] = [];
    const batched: number[] = [];
    const differences: number[] = [];
    for (let i = 0; i < reps; i++) {
      const t: Record<string, number> = {};
      for (const which of i % 2 === 0 ? ['direct', 'batched'] : ['batched', 'direct']) {
        const started = performance.now();
        if (which === 'direct') await model.infer([utterance], scales);
        else await batcher.submit(utterance);
        t[which] = performance.now() - started;
      }
      direct.push(t['direct']!);
      batched.push(t['batched']!);
      differences.push(t['batched']! - t['direct']!);
    }
    await batcher.close();
    await runner.close();
    return {
      requests: reps, ids: utterance.ids.length,
      direct_p50_ms: r(summary(direct).p50, 3), batched_p50_ms: r(summary(batched).p50, 3),
      paired_difference_p50_ms: r(summary(differences).p50, 3), paired_difference_mean_ms: r(summary(differences).mean, 3),
    };
  };
  const heavyModel = await paired(heavy, Number(process.env['BENCH_OVERHEAD_REPS'] ?? 300));
  // The tiny fixture runs in about a millisecond, so machine noise hides far less of the difference.
  const tinyModel = await paired(fixtures.tiny, 2000);

  // The batcher alone: submit -> run -> resolve around a model call that does nothing.
  const noop = new DynamicBatcher<number, number>({ maxBatchSize: 8, maxQueueDelayMs: 0, maxQueue: 64, run: async (batch) => batch });
  const bare: number[] = [];
  const call = async (x: readonly number[]): Promise<readonly number[]> => x;
  for (let i = 0; i < 20_000; i++) {
    const t0 = performance.now();
    await call([i]);
    const t1 = performance.now();
    await noop.submit(i);
    const t2 = performance.now();
    if (i >= 1000) bare.push(t2 - t1 - (t1 - t0));
  }
  await noop.close();
  const bareSummary = summary(bare);
  out['batcher_overhead_c1'] = {
    heavy_model: heavyModel,
    tiny_model: tinyModel,
    noop_model: { requests: bare.length, overhead_p50_ms: r(bareSummary.p50, 4), overhead_p99_ms: r(bareSummary.p99, 4) },
    target_ms: 1,
    met: (tinyModel['paired_difference_p50_ms'] ?? Infinity) <= 1 && bareSummary.p99 <= 1,
  };
}

// ---- 4. operator level: Conv1d stack vs MatMul stack ----
{
  const channels = 384;
  let seed = 7;
  const weights = (count: number, scale: number): Float32Array => {
    const w = new Float32Array(count);
    for (let i = 0; i < count; i++) {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      w[i] = ((seed / 2 ** 32) * 2 - 1) * scale;
    }
    return w;
  };
  const build = (op: 'conv1d' | 'matmul'): string => {
    const g = new GraphBuilder();
    let x = g.input('x', 'float32', op === 'conv1d' ? ['batch', channels, 'frames'] : ['batch', 'frames', channels]);
    for (let k = 0; k < 6; k++) {
      const y = op === 'conv1d'
        ? g.node('Conv', [x, g.floats(`w${k}`, [channels, channels, 3], weights(channels * channels * 3, 0.03))], { kernel_shape: { ints: [3] }, pads: { ints: [1, 1] } })
        : g.node('MatMul', [x, g.floats(`w${k}`, [channels, channels], weights(channels * channels, 0.05))]);
      x = g.node('Add', [x, g.node('Tanh', [y])]);
    }
    g.rename(x, 'y');
    g.output('y', 'float32', op === 'conv1d' ? ['batch', channels, 'frames'] : ['batch', 'frames', channels]);
    const file = path.join(root, `${op}.onnx`);
    writeFileSync(file, g.encode());
    return file;
  };
  const rows: Record<string, unknown>[] = [];
  for (const op of ['conv1d', 'matmul'] as const) {
    const session = await ort.InferenceSession.create(build(op), { executionProviders: ['cpu'], intraOpNumThreads: 0 });
    for (const frames of [30, 300]) {
      const sizes = [1, 4, 16];
      const inputs = new Map(sizes.map((b) => [b, new ort.Tensor('float32', weights(b * channels * frames, 1), op === 'conv1d' ? [b, channels, frames] : [b, frames, channels])]));
      const times = new Map<number, number[]>(sizes.map((b) => [b, []]));
      for (const b of sizes) for (let i = 0; i < 2; i++) await session.run({ x: inputs.get(b)! });
      for (let round = 0; round < 12; round++) {
        for (const b of rotated(sizes, round)) {
          for (let i = 0; i < Math.max(1, Math.round((frames === 30 ? 32 : 4) / b)); i++) {
            const t = performance.now();
            await session.run({ x: inputs.get(b)! });
            times.get(b)!.push((performance.now() - t) / b);
          }
        }
      }
      const perItem = Object.fromEntries(sizes.map((b) => [`batch_${b}`, r(summary(times.get(b)!).p50, 3)]));
      rows.push({ op, frames, per_item_ms: perItem, gain_at_4: r(perItem['batch_1']! / perItem['batch_4']!, 2), gain_at_16: r(perItem['batch_1']! / perItem['batch_16']!, 2) });
    }
    await session.release();
  }
  out['operator_level'] = rows;
}

await phonemizer.close();
await rm(root, { recursive: true, force: true });
out['loadavg_end'] = loadavg().map((x) => r(x));
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(new URL('./results/batching.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');

const lines = ['| layout | max_batch_size | concurrency | throughput (req/s) | p50 (ms) | p95 (ms) | mean batch |', '|---|---:|---:|---:|---:|---:|---:|'];
for (const c of out['curve'] as Cell[]) {
  lines.push(`| ${c.layout} | ${c.max_batch_size} | ${c.concurrency} | ${c.throughput_rps} | ${c.p50_ms} | ${c.p95_ms} | ${c.mean_batch} |`);
}
console.log(lines.join('\n'));
console.log(JSON.stringify({ model_level: out['model_level'], target: out['target_throughput_1_5x_at_c16'], overhead: out['batcher_overhead_c1'], operator_level: out['operator_level'] }, null, 2));
