/**
 * System information (GET /api/system/info): version and uptime of this facade, the inference
 * nodes and engines the scheduler knows, storage use (database, data directory, disk) and the
 * telemetry in effect. It reveals the deployment's topology, so only administrators read it.
 */
import { lstat, readdir, statfs } from 'node:fs/promises';
import { cpus, freemem, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { NodeState } from '@tts/proto/synthesis';
import type { Database } from '@tts/common/data';
import { TtsError, SERVICE_NAME, VERSION } from '@tts/common';
import { telemetryStatus } from '@tts/common/telemetry';
import type { SloService } from './slo/service.js';
import type { ClusterView } from '../cluster/cluster.js';

/** What system information is read from. */
export interface SystemInfoSources {
  readonly cluster: ClusterView;
  readonly database: Database;
  readonly kvKind: string;
  readonly dataDir: string;
  readonly slo: SloService;
}

async function databaseBytes(db: Database): Promise<number | null> {
  try {
    const rows = await db.query<{ bytes: number }>(
      `SELECT COALESCE(sum(pg_total_relation_size(c.oid)), 0)::bigint AS bytes
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = $1::text AND c.relkind IN ('r', 'm')`,
      [db.schema],
    );
    return Number(rows[0]?.bytes ?? 0);
  } catch {
    return null;
  }
}

async function folderUse(dir: string): Promise<{ files: number; bytes: number } | null> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    let files = 0;
    let bytes = 0;
    for (const e of entries) {
      if (!e.isFile()) continue;
      const st = await lstat(join(dir, e.name)).catch(() => undefined);
      if (st === undefined) continue;
      files++;
      bytes += st.size;
    }
    return { files, bytes };
  } catch {
    return null;
  }
}

async function disk(dir: string): Promise<{ total_bytes: number; free_bytes: number } | null> {
  try {
    const s = await statfs(dir);
    return { total_bytes: s.blocks * s.bsize, free_bytes: s.bavail * s.bsize };
  } catch {
    return null;
  }
}

/** Builds the GET /api/system/info body. */
export async function systemInfo(src: SystemInfoSources): Promise<Record<string, unknown>> {
  const dataDir = resolve(src.dataDir);
  const [snapshot, dbBytes, artifacts, diskUse, sli] = await Promise.all([
    src.cluster.snapshot().then((s) => ({ ok: true as const, s }), (err: unknown) => ({ ok: false as const, code: err instanceof TtsError ? err.code : 'INTERNAL_ERROR' })),
    databaseBytes(src.database),
    folderUse(join(dataDir, 'artifacts')),
    disk(dataDir),
    src.slo.repository.stats().catch(() => null),
  ]);
  const nodes = snapshot.ok ? snapshot.s.nodes : [];
  const ready = new Set(snapshot.ok ? snapshot.s.ready.map((n) => n.nodeId) : []);
  const engines = new Map<string, { ready: boolean; nodes_ready: number; voice_count: number; devices: Set<string> }>();
  for (const n of nodes) {
    for (const e of n.engines) {
      const entry = engines.get(e.name) ?? { ready: false, nodes_ready: 0, voice_count: 0, devices: new Set<string>() };
      if (e.ready && ready.has(n.nodeId)) {
        entry.ready = true;
        entry.nodes_ready++;
        entry.voice_count = Math.max(entry.voice_count, e.voiceCount);
        for (const d of e.device.split(',')) if (d.trim() !== '') entry.devices.add(d.trim());
      }
      engines.set(e.name, entry);
    }
  }
  const telemetry = telemetryStatus();
  const mem = process.memoryUsage();
  return {
    service: SERVICE_NAME,
    version: VERSION,
    started_at: new Date(Date.now() - process.uptime() * 1000).toISOString(),
    uptime_sec: Math.round(process.uptime()),
    process: {
      pid: process.pid,
      node: process.version,
      platform: process.platform,
      arch: process.arch,
      cpus: cpus().length,
      load_average: loadavg().map((x) => Math.round(x * 100) / 100),
      memory_total_bytes: totalmem(),
      memory_free_bytes: freemem(),
      rss_bytes: mem.rss,
      heap_used_bytes: mem.heapUsed,
    },
    cluster_error: snapshot.ok ? null : snapshot.code,
    nodes: nodes.map((n) => ({
      node_id: n.nodeId,
      address: n.address,
      state: (NodeState[n.state] ?? 'NODE_STATE_UNSPECIFIED').replace(/^NODE_STATE_/, '').toLowerCase(),
      ready: ready.has(n.nodeId),
      version: n.version,
      uptime_sec: n.startedUnixMs > 0 ? Math.max(0, Math.round((Date.now() - n.startedUnixMs) / 1000)) : null,
      capacity: n.capacity,
      in_flight: n.inFlight,
      queue_depth: n.queueDepth,
      real_time_factor: n.realTimeFactor,
      engines: n.engines.filter((e) => e.ready).map((e) => e.name),
    })),
    engines: [...engines.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([name, e]) => ({
      name, ready: e.ready, nodes_ready: e.nodes_ready, voice_count: e.voice_count, devices: [...e.devices].sort(),
    })),
    storage: {
      database: { kind: src.database.kind, schema: src.database.schema, size_bytes: dbBytes },
      kv: { kind: src.kvKind },
      data_dir: { path: dataDir, artifacts: artifacts, disk: diskUse },
      slo_requests: sli === null ? null : { rows: sli.rows, oldest: sli.oldest === null ? null : sli.oldest.toISOString() },
    },
    telemetry: { enabled: telemetry.enabled, service_name: telemetry.serviceName || null, metrics_port: telemetry.metricsPort, trace_exporters: [...telemetry.traceExporters] },
  };
}
