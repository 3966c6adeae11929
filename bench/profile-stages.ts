/**
 * Sums V8 CPU profiles (`.cpuprofile`, as `bench serving` writes them with BENCH_SERVING_PROFILE)
 * by stage of the serving path: each sample goes to the stage of the innermost frame on its stack
 * that belongs to a known library or to the platform's own code (Node's internals count for the
 * code that called them). Usage: `node --import tsx bench/profile-stages.ts <dir> [requests]`;
 * with the number of requests the profiles covered, it prints CPU ms per request.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Stages, first match wins, tested against a frame's url (or its function name for V8's own entries). */
const STAGES: readonly (readonly [string, RegExp])[] = [
  ['idle', /^\(idle\)$/],
  ['garbage collection', /^\(garbage collector\)$/],
  ['database (PGlite)', /pglite|^wasm:\/\//],
  ['OpenAPI validation', /express-openapi-validator|\/ajv|ajv-formats/],
  ['telemetry', /@opentelemetry|\/telemetry\//],
  ['logging', /\/pino|\/logging\//],
  ['gRPC', /@grpc\/|@bufbuild|protobufjs|\/proto\/gen|\/grpc\//],
  ['HTTP routing (Express)', /path-to-regexp|\/router\/|\/express\/|body-parser|\/qs\//],
  ['authentication and limits', /facade\/(dist|src)\/(identity|middleware\/access|middleware\/client-address)|\/kv\//],
  ['metering and audits', /facade\/(dist|src)\/(speech\/metering|speech\/concurrency|compliance|data\/audits|data\/usage)/],
  ['routing (cluster view)', /facade\/(dist|src)\/cluster|\/routing\//],
  ['HTTP middleware and presenters', /facade\/(dist|src)\/(middleware|presenters|app)/],
  ['speech use case', /facade\/(dist|src)\//],
  ['node: engine', /inference-node\/(dist|src)\/engines/],
  ['node: encoding', /inference-node\/(dist|src)\/audio\/(encode|encoders|wav|mp3|opus|flac|aac)/],
  ['node: watermark', /inference-node\/(dist|src)\/watermark/],
  ['node: pipeline and DSP', /inference-node\/(dist|src)\/(domain|audio|text)/],
  ['node: gRPC handlers', /inference-node\/(dist|src)\//],
  ['scheduler', /scheduler\/(dist|src)\//],
  ['platform common', /common\/(dist|src)\//],
  ['HTTP (Node)', /^node:(_http|http|net|internal\/http|internal\/streams|stream)/],
];
const SKIP = /^node:|^$/;

function stageOf(frames: readonly ProfileNode['callFrame'][]): string {
  for (const f of frames) {
    const key = f.url === '' ? f.functionName : f.url;
    if (f.url !== '' && SKIP.test(f.url)) continue;
    for (const [stage, pattern] of STAGES) if (pattern.test(key)) return stage;
  }
  for (const f of frames) for (const [stage, pattern] of STAGES.slice(-1)) if (pattern.test(f.url)) return stage;
  return frames.some((f) => f.url.startsWith('node:')) ? 'Node internals (other)' : 'native / other';
}

/** CPU ms by stage of one profile (idle and the profiler's own work left out). */
export function stagesOf(profile: Profile): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stageById = new Map<number, string>();
  const out = new Map<string, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    let stage = stageById.get(id);
    if (stage === undefined) {
      const frames: ProfileNode['callFrame'][] = [];
      for (let a: number | undefined = id; a !== undefined; a = parent.get(a)) frames.push(byId.get(a)!.callFrame);
      // The inspector serializing the profile itself when it stops.
      stage = frames.some((f) => f.url.includes('cpu-profile.mjs')) ? 'profiler' : stageOf(frames);
      stageById.set(id, stage);
    }
    out.set(stage, (out.get(stage) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  }
  out.delete('idle');
  out.delete('profiler');
  return out;
}

if (process.argv[1]?.endsWith('profile-stages.ts')) {
  const dir = process.argv[2] ?? '.';
  const requests = Number(process.argv[3] ?? 0);
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).sort()) {
    const stages = stagesOf(JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile);
    const total = [...stages.values()].reduce((a, b) => a + b, 0);
    console.log(`${file}: ${total.toFixed(0)} ms of CPU${requests > 0 ? `, ${(total / requests).toFixed(2)} ms a request` : ''}`);
    for (const [stage, ms] of [...stages].sort((a, b) => b[1] - a[1])) {
      console.log(`  ${stage.padEnd(34)} ${ms.toFixed(0).padStart(7)} ms ${((100 * ms) / total).toFixed(1).padStart(5)} %${requests > 0 ? `  ${(ms / requests).toFixed(2)} ms/request` : ''}`);
    }
  }
}
