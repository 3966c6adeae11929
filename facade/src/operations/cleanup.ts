/**
 * Retention: what the platform deletes once it is old, on a schedule (TTS_CLEANUP_INTERVAL_MIN)
 * and on demand (POST /api/system/cleanup/run), and what it deliberately keeps.
 * - audio artifacts: files `<sha256>.<ext>` under DATA_DIR/artifacts older than
 *   TTS_ARTIFACT_RETENTION_HOURS (by modification time), and temporary files of writes abandoned
 *   over an hour ago; nothing else in the folder is touched, and links are never followed;
 * - SLI rows older than TTS_SLO_RETENTION_DAYS;
 * - stored reference clips past their expiry (TTS_REFERENCE_RETENTION_HOURS after the upload);
 * - job records: not deleted here (they live in the scheduler's job store; see `JOB_RECORDS_NOTE`);
 * - logs: not stored by the platform (stdout, kept by the log collector; a bounded ring in memory);
 * - usage events and audit records: kept, append-only by design (billing and compliance).
 * Runs of several replicas may overlap; each deletion is idempotent.
 */
import { lstat, readdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { ReferenceRepository, SloRepository, StudioRepository } from '../data/index.js';
import type { Logger } from '@tts/common';

/** Retention settings. */
export interface CleanupPolicy {
  /** DATA_DIR; artifacts are under `<dataDir>/artifacts`. */
  readonly dataDir: string;
  /** 0 = artifacts are never deleted. */
  readonly artifactRetentionHours: number;
  readonly sloRetentionDays: number;
  /** Lifetime of a stored reference clip (each row carries its own expiry). */
  readonly referenceRetentionHours: number;
  /** 0 = no automatic runs. */
  readonly intervalMinutes: number;
}

/** One kind of data and how it is retained. */
export interface RetentionItem {
  readonly name: 'audio_artifacts' | 'slo_requests' | 'reference_audio' | 'studio_sessions' | 'studio_vip' | 'job_records' | 'logs' | 'usage_events' | 'audit_records';
  /** True when the cleanup deletes it past `retentionSeconds`. */
  readonly managed: boolean;
  /** Age after which it is deleted; null when it is not deleted here. */
  readonly retentionSeconds: number | null;
  readonly location: string | null;
  readonly note: string;
}

/** What one run did to one kind of data. */
export interface CleanupItemResult {
  readonly name: RetentionItem['name'];
  readonly status: 'ok' | 'failed' | 'disabled' | 'not_configured' | 'kept' | 'not_stored';
  /** Files or rows deleted. */
  readonly removed: number;
  readonly bytesFreed: number;
  readonly note: string;
}

/** The report of one run. */
export interface CleanupReport {
  readonly trigger: 'manual' | 'schedule';
  readonly startedAt: Date;
  readonly durationMs: number;
  readonly items: readonly CleanupItemResult[];
}

/** Why job records are not deleted by this cleanup. */
export const JOB_RECORDS_NOTE =
  'Not configured: job records live in the scheduler\'s job store (its own database in embedded mode) and the job repository offers no retention yet; they are kept.';
const LOGS_NOTE = 'Not stored by the platform: every process writes JSON lines to stdout for the log collector and keeps only its last 1000 lines in memory.';
const USAGE_NOTE = 'Kept: usage events are append-only by design (billing, quotas); the database refuses deletion.';
const AUDIT_NOTE = 'Kept: job-access and consent audits are append-only by design (compliance); the database refuses deletion.';

const ARTIFACT = /^[0-9a-f]{64}\.[a-z0-9]{1,8}$/;
const ARTIFACT_TEMP = /^[0-9a-f]{64}\.[a-z0-9]{1,8}\.\d+\.[0-9a-f]{8}\.tmp$/;
const TEMP_MAX_AGE_MS = 60 * 60 * 1000;

/** Runs and schedules the retention. */
export class CleanupService {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<CleanupReport> | undefined;
  private last: CleanupReport | undefined;

  constructor(
    readonly policy: CleanupPolicy,
    private readonly slo: SloRepository,
    private readonly references: ReferenceRepository,
    private readonly logger: Logger,
    private readonly studio?: StudioRepository,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** The last run's report, if any ran in this process. */
  get lastRun(): CleanupReport | undefined {
    return this.last;
  }

  /** When the next scheduled run is due, or null without a schedule. */
  nextRunAt: Date | null = null;

  /** Where the artifacts are. */
  get artifactsDir(): string {
    return join(resolve(this.policy.dataDir), 'artifacts');
  }

  /** What is retained, and how. */
  items(): RetentionItem[] {
    const p = this.policy;
    return [
      {
        name: 'audio_artifacts',
        managed: p.artifactRetentionHours > 0,
        retentionSeconds: p.artifactRetentionHours > 0 ? p.artifactRetentionHours * 3600 : null,
        location: this.artifactsDir,
        note: p.artifactRetentionHours > 0
          ? 'Job audio files (<sha256>.<ext>) older than the retention, by modification time, and abandoned temporary files older than an hour.'
          : 'Kept forever (TTS_ARTIFACT_RETENTION_HOURS=0).',
      },
      { name: 'slo_requests', managed: true, retentionSeconds: p.sloRetentionDays * 86_400, location: 'database table slo_requests', note: 'One SLI row per answered request.' },
      { name: 'reference_audio', managed: true, retentionSeconds: p.referenceRetentionHours * 3600, location: 'database table reference_audio', note: 'Reference clips stored by POST /api/reference/validate; each expires this long after its upload (expired clips are never served, and are deleted here).' },
      { name: 'studio_sessions', managed: true, retentionSeconds: null, location: 'database table studio_sessions', note: 'Studio sessions, each deleted after its own expiry (7 days idle / 30 days at most; guests 30 / 90).' },
      { name: 'studio_vip', managed: true, retentionSeconds: null, location: 'database table studio_users', note: 'VIP memberships end at their vip_until; the end is recorded in the studio audit.' },
      { name: 'job_records', managed: false, retentionSeconds: null, location: null, note: JOB_RECORDS_NOTE },
      { name: 'logs', managed: false, retentionSeconds: null, location: null, note: LOGS_NOTE },
      { name: 'usage_events', managed: false, retentionSeconds: null, location: 'database table usage_events', note: USAGE_NOTE },
      { name: 'audit_records', managed: false, retentionSeconds: null, location: 'database tables job_access_audit, consent_audit, studio_audit', note: AUDIT_NOTE },
    ];
  }

  /** Runs the retention now (a run already in progress is joined, not repeated). */
  run(trigger: CleanupReport['trigger'] = 'manual'): Promise<CleanupReport> {
    this.running ??= this.execute(trigger).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Starts the schedule (no-op when the interval is 0). */
  start(): void {
    if (this.policy.intervalMinutes <= 0 || this.timer !== undefined) return;
    const ms = this.policy.intervalMinutes * 60_000;
    this.nextRunAt = new Date(this.clock().getTime() + ms);
    this.timer = setInterval(() => {
      this.nextRunAt = new Date(this.clock().getTime() + ms);
      this.run('schedule').catch((err: unknown) => this.logger.error('scheduled cleanup failed', { err }));
    }, ms);
    this.timer.unref();
  }

  /** Stops the schedule and waits for a run in progress. */
  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.nextRunAt = null;
    await this.running?.catch(() => undefined);
  }

  private async execute(trigger: CleanupReport['trigger']): Promise<CleanupReport> {
    const startedAt = this.clock();
    const started = performance.now();
    const items: CleanupItemResult[] = [await this.artifacts(startedAt), await this.sliRows(startedAt), await this.referenceClips(startedAt), ...(await this.studioRows(startedAt))];
    items.push(
      { name: 'job_records', status: 'not_configured', removed: 0, bytesFreed: 0, note: JOB_RECORDS_NOTE },
      { name: 'logs', status: 'not_stored', removed: 0, bytesFreed: 0, note: LOGS_NOTE },
      { name: 'usage_events', status: 'kept', removed: 0, bytesFreed: 0, note: USAGE_NOTE },
      { name: 'audit_records', status: 'kept', removed: 0, bytesFreed: 0, note: AUDIT_NOTE },
    );
    const report: CleanupReport = { trigger, startedAt, durationMs: performance.now() - started, items };
    this.last = report;
    this.logger.info('cleanup done', { trigger, ...Object.fromEntries(items.filter((i) => i.status === 'ok' || i.status === 'failed').map((i) => [i.name, i.status === 'ok' ? i.removed : 'failed'])) });
    return report;
  }

  private async studioRows(now: Date): Promise<CleanupItemResult[]> {
    const studio = this.studio;
    if (!studio) return [];
    const one = async (name: 'studio_sessions' | 'studio_vip', note: string, work: () => Promise<number>): Promise<CleanupItemResult> => {
      try {
        return { name, status: 'ok', removed: await work(), bytesFreed: 0, note };
      } catch (err) {
        this.logger.error('studio cleanup failed', { item: name, err });
        return { name, status: 'failed', removed: 0, bytesFreed: 0, note: 'See the log.' };
      }
    };
    return [
      await one('studio_sessions', 'Studio sessions past their expiry (expired sessions are never accepted; this removes their rows).', () => studio.deleteExpiredSessions(now)),
      await one('studio_vip', 'VIP memberships past their end, ended and audited (vip.expired).', () => studio.expireVip(now)),
    ];
  }

  private async referenceClips(now: Date): Promise<CleanupItemResult> {
    try {
      const removed = await this.references.deleteExpired(now);
      return { name: 'reference_audio', status: 'ok', removed, bytesFreed: 0, note: 'Reference clips past their expiry.' };
    } catch (err) {
      this.logger.error('reference clip cleanup failed', { err });
      return { name: 'reference_audio', status: 'failed', removed: 0, bytesFreed: 0, note: 'The reference clips could not be deleted; see the log.' };
    }
  }

  private async artifacts(now: Date): Promise<CleanupItemResult> {
    const hours = this.policy.artifactRetentionHours;
    if (hours <= 0) return { name: 'audio_artifacts', status: 'disabled', removed: 0, bytesFreed: 0, note: 'TTS_ARTIFACT_RETENTION_HOURS=0: artifacts are kept.' };
    const dir = this.artifactsDir;
    let names: string[];
    try {
      names = (await readdir(dir, { withFileTypes: true })).filter((d) => d.isFile()).map((d) => d.name);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { name: 'audio_artifacts', status: 'ok', removed: 0, bytesFreed: 0, note: `${dir} does not exist (no job audio stored here).` };
      this.logger.error('artifact cleanup failed', { err });
      return { name: 'audio_artifacts', status: 'failed', removed: 0, bytesFreed: 0, note: 'The artifacts folder could not be read; see the log.' };
    }
    const cutoff = now.getTime() - hours * 3_600_000;
    let removed = 0;
    let bytes = 0;
    let failures = 0;
    for (const name of names) {
      const isArtifact = ARTIFACT.test(name);
      if (!isArtifact && !ARTIFACT_TEMP.test(name)) continue;
      const path = join(dir, name);
      try {
        const st = await lstat(path);
        if (!st.isFile()) continue;
        const limit = isArtifact ? cutoff : now.getTime() - TEMP_MAX_AGE_MS;
        if (st.mtimeMs >= limit) continue;
        await rm(path, { force: true });
        removed++;
        bytes += st.size;
      } catch (err) {
        failures++;
        this.logger.warn('artifact not removed', { file: name, err });
      }
    }
    return {
      name: 'audio_artifacts',
      status: failures > 0 && removed === 0 ? 'failed' : 'ok',
      removed,
      bytesFreed: bytes,
      note: failures > 0 ? `${failures} file(s) could not be removed; see the log.` : `Files older than ${hours} h under ${dir}.`,
    };
  }

  private async sliRows(now: Date): Promise<CleanupItemResult> {
    const days = this.policy.sloRetentionDays;
    try {
      const removed = await this.slo.deleteBefore(new Date(now.getTime() - days * 86_400_000));
      return { name: 'slo_requests', status: 'ok', removed, bytesFreed: 0, note: `SLI rows older than ${days} days.` };
    } catch (err) {
      this.logger.error('SLI cleanup failed', { err });
      return { name: 'slo_requests', status: 'failed', removed: 0, bytesFreed: 0, note: 'The SLI rows could not be deleted; see the log.' };
    }
  }
}
