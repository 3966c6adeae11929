/**
 * First audio of the default voice (issue 14, item 4): festival's former `server` transport against
 * the `pipe` transport, measured in one run.
 * In-process (engine level): milliseconds per call of the festival engine on each transport, calls
 * interleaved. Against the real multi-process platform: two launchers at once, one per transport
 * (`TTS_FESTIVAL_TRANSPORT`): time to the first streamed byte of five Harvard sentences through
 * `POST /v1/audio/speech` (response_format pcm, voice `alloy` = festival:slt; flite:slt for
 * reference). Each block is 2 warm-up and 8 measured requests back to back on one platform, as a
 * client would send them; blocks alternate between the platforms for several rounds, so the load
 * of a shared machine falls on both alike. (Alternating single requests instead would leave each
 * festival connection idle between its requests, and an idle TCP connection acknowledges at once:
 * that hides the server transport's delayed-ACK stall.) Writes bench/results/festival-first-audio.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { closeAllClients, setLogSink } from '@tts/common';
import { createFestivalEngine, type FestivalEngine, type FestivalTransport } from '@tts/inference-node/testing';
import { launchPlatform, postFirstByte, type LaunchedPlatform } from './platform.js';
import { r, summary } from './support.js';

setLogSink(() => undefined);
/** Harvard sentences, list 1, 1-5. */
const HARVARD =
  'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. ' +
  "It's easy to tell the depth of a well. These days a chicken leg is a rare dish. Rice is often served in round bowls.";
const TRANSPORTS: readonly FestivalTransport[] = ['server', 'pipe'];
/** Measured (warm) requests per block. */
const REQUESTS = Number(process.env['BENCH_FIRST_AUDIO_REQUESTS'] ?? 8);
/** Warm-up requests per block, not counted. */
const WARMUP = 2;
/** Blocks per transport and voice, alternating between the transports. */
const ROUNDS = Number(process.env['BENCH_FIRST_AUDIO_ROUNDS'] ?? 3);
/** Calls per text and transport at engine level. */
const ENGINE_CALLS = Number(process.env['BENCH_ENGINE_CALLS'] ?? 15);

const out: Record<string, unknown> = {
  machine: { cpu: cpus()[0]?.model, cores: availableParallelism(), node: process.version, loadavg_start: loadavg().map((x) => r(x)) },
  date: new Date().toISOString(),
};

// ---- engine level, in-process: one festival process per transport, calls interleaved ----
{
  const engines = new Map<FestivalTransport, FestivalEngine>();
  for (const transport of TRANSPORTS) {
    const engine = createFestivalEngine({ processes: 1, transport });
    await engine.load();
    engines.set(transport, engine);
  }
  const rows: Record<string, unknown>[] = [];
  for (const text of ['Hi.', 'The birch canoe slid on the', 'The birch canoe slid on the smooth planks.']) {
    const times = new Map<FestivalTransport, number[]>(TRANSPORTS.map((t) => [t, []]));
    for (let i = 0; i < ENGINE_CALLS; i++) {
      for (const transport of TRANSPORTS) {
        const started = performance.now();
        await engines.get(transport)!.synthesize([{ text, voice: 'festival:slt', speed: 1 }]);
        times.get(transport)!.push(performance.now() - started);
      }
    }
    for (const transport of TRANSPORTS) {
      const s = summary(times.get(transport)!);
      rows.push({ transport, text, calls: ENGINE_CALLS, ms_p50: r(s.p50, 1), ms_p95: r(s.p95, 1) });
    }
  }
  for (const engine of engines.values()) await engine.close();
  out['engine_call_ms'] = rows;
}

// ---- the real platform, one launcher per transport, requests interleaved ----
{
  const platforms = new Map<FestivalTransport, LaunchedPlatform>();
  for (const transport of TRANSPORTS) {
    platforms.set(transport, await launchPlatform({ TTS_NODES: '1', TTS_FESTIVAL_PROCESSES: '2', TTS_FESTIVAL_TRANSPORT: transport, METRICS_PORT: '0' }, 4));
  }
  const speech = async (p: LaunchedPlatform, voice: string): Promise<{ firstMs: number; totalMs: number }> => {
    const x = await postFirstByte(p, '/v1/audio/speech', { model: 'tts-1', input: HARVARD, voice, response_format: 'pcm' });
    if (x.status !== 200) throw new Error(`status ${x.status}`);
    return x;
  };
  const rows: Record<string, unknown>[] = [];
  for (const voice of ['alloy', 'flite:slt']) {
    const firsts = new Map<FestivalTransport, number[]>(TRANSPORTS.map((t) => [t, []]));
    const totals = new Map<FestivalTransport, number[]>(TRANSPORTS.map((t) => [t, []]));
    const blockP50s = new Map<FestivalTransport, number[]>(TRANSPORTS.map((t) => [t, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const transport of TRANSPORTS) {
        const p = platforms.get(transport)!;
        for (let i = 0; i < WARMUP; i++) await speech(p, voice);
        const block: number[] = [];
        for (let i = 0; i < REQUESTS; i++) {
          const x = await speech(p, voice);
          block.push(x.firstMs);
          totals.get(transport)!.push(x.totalMs);
        }
        firsts.get(transport)!.push(...block);
        blockP50s.get(transport)!.push(r(summary(block).p50, 1));
      }
    }
    for (const transport of TRANSPORTS) {
      const f = summary(firsts.get(transport)!);
      rows.push({
        voice,
        festival_transport: transport,
        requests: firsts.get(transport)!.length,
        first_audio_ms_p50: r(f.p50, 1),
        first_audio_ms_p50_per_block: blockP50s.get(transport),
        first_audio_ms_min: r(Math.min(...firsts.get(transport)!), 1),
        first_audio_ms_p95: r(f.p95, 1),
        whole_ms_p50: r(summary(totals.get(transport)!).p50, 1),
      });
    }
  }
  out['stream_first_audio_rest'] = rows;
  closeAllClients();
  for (const p of platforms.values()) await p.stop();
}

out['loadavg_end'] = loadavg().map((x) => r(x));
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/festival-first-audio.json', `${JSON.stringify(out, null, 2)}\n`);
console.log(JSON.stringify(out, null, 2));
