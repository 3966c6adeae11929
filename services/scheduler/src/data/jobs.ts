/**
 * Asynchronous synthesis jobs and their events. Every state transition is one SQL statement: a
 * data-modifying CTE updates the job under a condition on its current state, bumps the job's
 * `last_event_id` and inserts the matching event, so a transition and its event are atomic, event
 * ids increase by one per job, and a transition that does not apply (the job moved on) changes
 * nothing. This is what makes completion idempotent: of two completions of one job only the first
 * finds it unfinished.
 */
import type { LexiconEntry } from '@tts/common';
import type { Database, SqlParam } from '@tts/common/data';

/** States of a job. */
export type JobState = 'queued' | 'running' | 'retrying' | 'completed' | 'failed' | 'cancelled';

/** Who owns a job: an API key (owner id = key id), a web session/subject, or a studio user (owner id = user id). */
export type JobOwnerKind = 'api_key' | 'web' | 'studio';

/** What to synthesize. */
export interface JobSpecFields {
  readonly text: string;
  readonly voice: string;
  readonly engine: string;
  /** 0 = 1.0 */
  readonly speed: number;
  /** Audio format name (wav, mp3, ...). */
  readonly format: string;
  /** 0 = the format's default. */
  readonly sampleRate: number;
  readonly language: string;
  readonly mode: string;
  readonly consentConfirmed: boolean;
  readonly instructions: string;
  readonly rawText: boolean;
  /** The reference clip of a clone job (base64), its file name and stored id; null otherwise. */
  readonly clone?: { readonly audioBase64: string; readonly filename: string; readonly referenceId: string } | null;
  /** The pronunciation lexicon the request carried (applied when the job runs); absent when none. */
  readonly lexicon?: readonly LexiconEntry[];
  /** The provenance payload the submitter chose for the job's audio (names its submitting request); absent: none given. */
  readonly watermarkPayload?: number;
}

/** A job to record. */
export interface NewJob {
  /** Random, URL-safe. */
  readonly jobId: string;
  readonly ownerId: string;
  readonly ownerKind: JobOwnerKind;
  readonly tier: string;
  /** 0 = most urgent. */
  readonly priority: number;
  readonly requestId: string | null;
  /** Dispatches allowed before the job fails. */
  readonly maxAttempts: number;
  readonly spec: JobSpecFields;
}

/** The stored audio of a completed job. */
export interface JobResultFields {
  /** Hex SHA-256 of the audio bytes. */
  readonly sha256: string;
  /** Artifact path relative to the scheduler's data directory. */
  readonly path: string;
  readonly bytes: number;
  readonly audioSeconds: number;
  readonly format: string;
  readonly sampleRate: number;
  readonly contentType: string;
  readonly voice: string;
  readonly engine: string;
  /** The node's CloneReport of a clone job, as JSON. */
  readonly clone?: Record<string, unknown> | null;
  /** Where each word is in the audio (seconds), as the node reported them; absent without timings. */
  readonly words?: readonly StoredWordTiming[];
}

/** A word of a job's text and where it is in the job's audio, seconds. */
export interface StoredWordTiming {
  readonly word: string;
  readonly start: number;
  readonly end: number;
}

/** A job as stored: as it was recorded, and where it is now. */
export interface JobRecord extends NewJob {
  readonly state: JobState;
  readonly progress: number;
  /** Dispatches so far. */
  readonly attempts: number;
  readonly lastEventId: number;
  readonly characters: number;
  /** Node of the current or last attempt. */
  readonly nodeId: string | null;
  readonly errorCode: string | null;
  readonly errorMessage: string | null;
  /** Set when completed. */
  readonly result: JobResultFields | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly startedAt: Date | null;
  readonly finishedAt: Date | null;
}

/** The payload of an event: the job's state after the transition and what caused it. */
export interface JobEventPayload {
  readonly state: JobState;
  readonly progress: number;
  readonly node_id?: string;
  readonly attempt?: number;
  readonly error_code?: string;
  readonly error_message?: string;
}

/** One event of a job. */
export interface JobEventRecord {
  readonly jobId: string;
  /** 1, 2, 3... per job. */
  readonly eventId: number;
  readonly at: Date;
  /** queued | running | retrying | completed | failed | cancelled */
  readonly kind: string;
  readonly payload: JobEventPayload;
}

/** The outcome of a transition that may find the job already moved on. */
export interface JobTransition {
  readonly job: JobRecord;
  /** False when the job was already in a state the transition does not apply to. */
  readonly changed: boolean;
}

/** A job waiting to be dispatched, with what routing needs. */
export interface WaitingJob {
  readonly jobId: string;
  readonly priority: number;
  readonly voice: string;
  readonly engine: string;
  readonly characters: number;
}

/** Job counts for queue statistics. */
export interface JobCounts {
  /** queued + retrying */
  readonly waiting: number;
  readonly running: number;
  /** Characters of the waiting jobs. */
  readonly waitingCharacters: number;
}

interface JobRow {
  job_id: string;
  owner_id: string;
  owner_kind: JobOwnerKind;
  tier: string;
  priority: number;
  request_id: string | null;
  state: JobState;
  progress: number;
  attempts: number;
  max_attempts: number;
  last_event_id: number;
  text: string;
  characters: number;
  voice: string;
  engine: string;
  speed: number;
  format: string;
  sample_rate: number;
  language: string;
  mode: string;
  consent_confirmed: boolean;
  instructions: string;
  raw_text: boolean;
  clone_reference: string | null;
  clone_filename: string | null;
  clone_reference_id: string | null;
  result_clone: unknown;
  result_words: unknown;
  lexicon?: unknown;
  watermark_payload?: string | number | null;
  node_id: string | null;
  error_code: string | null;
  error_message: string | null;
  result_sha256: string | null;
  result_path: string | null;
  result_bytes: number | null;
  result_audio_seconds: number | null;
  result_format: string | null;
  result_sample_rate: number | null;
  result_content_type: string | null;
  result_voice: string | null;
  result_engine: string | null;
  created_at: Date;
  updated_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

interface EventRow {
  job_id: string;
  event_id: number;
  at: Date;
  kind: string;
  payload: unknown;
}

/** A jsonb column's value (postgres.js and PGlite return it parsed; a string would be a driver returning raw JSON). */
const jsonColumn = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : value);

function toRecord(row: JobRow): JobRecord {
  return {
    jobId: row.job_id,
    ownerId: row.owner_id,
    ownerKind: row.owner_kind,
    tier: row.tier,
    priority: row.priority,
    requestId: row.request_id,
    state: row.state,
    progress: row.progress,
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    lastEventId: row.last_event_id,
    spec: {
      text: row.text,
      voice: row.voice,
      engine: row.engine,
      speed: row.speed,
      format: row.format,
      sampleRate: row.sample_rate,
      language: row.language,
      mode: row.mode,
      consentConfirmed: row.consent_confirmed,
      instructions: row.instructions,
      rawText: row.raw_text,
      ...(row.clone_reference === null || row.clone_reference === undefined ? {} : { clone: { audioBase64: row.clone_reference, filename: row.clone_filename ?? '', referenceId: row.clone_reference_id ?? '' } }),
      ...(row.lexicon === null || row.lexicon === undefined ? {} : { lexicon: lexiconOfRow(row.lexicon) ?? [] }),
      ...(row.watermark_payload === null || row.watermark_payload === undefined ? {} : { watermarkPayload: Number(row.watermark_payload) }),
    },
    characters: row.characters,
    nodeId: row.node_id,
    errorCode: row.error_code,
    errorMessage: row.error_message,
    result:
      row.result_sha256 === null
        ? null
        : {
            sha256: row.result_sha256,
            path: row.result_path ?? '',
            bytes: row.result_bytes ?? 0,
            audioSeconds: row.result_audio_seconds ?? 0,
            format: row.result_format ?? '',
            sampleRate: row.result_sample_rate ?? 0,
            contentType: row.result_content_type ?? '',
            voice: row.result_voice ?? '',
            engine: row.result_engine ?? '',
            ...(row.result_clone === null || row.result_clone === undefined ? {} : { clone: jsonColumn(row.result_clone) as Record<string, unknown> }),
            ...(row.result_words === null || row.result_words === undefined ? {} : { words: jsonColumn(row.result_words) as StoredWordTiming[] }),
          },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}

function toEvent(row: EventRow): JobEventRecord {
  // postgres.js returns jsonb parsed; PGlite too. A string would be a driver returning raw JSON.
  const payload = (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as JobEventPayload;
  return { jobId: row.job_id, eventId: row.event_id, at: row.at, kind: row.kind, payload };
}

// The event of a transition: the job's new state and the facts about it, nulls left out.
const EVENT_FROM_J = `
  INSERT INTO job_events (job_id, event_id, kind, payload)
  SELECT job_id, last_event_id, state, jsonb_strip_nulls(jsonb_build_object(
    'state', state, 'progress', progress, 'node_id', node_id, 'attempt', NULLIF(attempts, 0),
    'error_code', error_code, 'error_message', error_message))
  FROM j`;

const NOT_FINISHED = `state IN ('queued', 'running', 'retrying')`;

/**
 * The fence of an attempt's outcome (parameters $a runner, $b attempt, both null = no fence): the job
 * is still running under that runner and attempt, so a scheduler whose lease lapsed (and whose job
 * another scheduler has requeued or run since) changes nothing.
 */
const fenced = (runner: string, attempt: string): string =>
  `(${runner}::text IS NULL OR (state = 'running' AND runner = ${runner}::text AND attempts = ${attempt}::integer))`;

/** Running under no live scheduler lease: the scheduler that ran it is gone. */
const ABANDONED = `(runner IS NULL OR NOT EXISTS (SELECT 1 FROM scheduler_leases l WHERE l.incarnation = jobs.runner AND l.expires_at > now()))`;

const INSERT_SQL = `
WITH j AS (
  INSERT INTO jobs (job_id, owner_id, owner_kind, tier, priority, request_id, state, max_attempts, last_event_id,
                    text, characters, voice, engine, speed, format, sample_rate, language, mode, consent_confirmed,
                    instructions, raw_text, clone_reference, clone_filename, clone_reference_id, lexicon, watermark_payload)
  VALUES ($1::text, $2::text, $3::text, $4::text, $5::smallint, $6::text, 'queued', $7::integer, 1,
          $8::text, $9::integer, $10::text, $11::text, $12::real, $13::text, $14::integer, $15::text, $16::text, $17::boolean,
          $18::text, $19::boolean, $20::text, $21::text, $22::text, $23::text::jsonb, $24::bigint)
  RETURNING *
), e AS (${EVENT_FROM_J}
)
SELECT * FROM j`;

// A job dispatched as it is submitted (a node was free): recorded running at once, with its
// "queued" and "running" events.
const INSERT_RUNNING_SQL = `
WITH j AS (
  INSERT INTO jobs (job_id, owner_id, owner_kind, tier, priority, request_id, state, max_attempts, last_event_id,
                    text, characters, voice, engine, speed, format, sample_rate, language, mode, consent_confirmed,
                    instructions, raw_text, clone_reference, clone_filename, clone_reference_id, attempts, node_id, runner, started_at, lexicon, watermark_payload)
  VALUES ($1::text, $2::text, $3::text, $4::text, $5::smallint, $6::text, 'running', $7::integer, 2,
          $8::text, $9::integer, $10::text, $11::text, $12::real, $13::text, $14::integer, $15::text, $16::text, $17::boolean,
          $18::text, $19::boolean, $20::text, $21::text, $22::text, 1, $23::text, $24::text, now(), $25::text::jsonb, $26::bigint)
  RETURNING *
), e AS (
  INSERT INTO job_events (job_id, event_id, at, kind, payload)
  SELECT job_id, 1, now(), 'queued', jsonb_build_object('state', 'queued', 'progress', 0) FROM j
  UNION ALL
  SELECT job_id, 2, clock_timestamp(), 'running', jsonb_build_object('state', 'running', 'progress', 0, 'node_id', node_id, 'attempt', 1) FROM j
)
SELECT * FROM j`;

const CLAIM_SQL = `
WITH j AS (
  UPDATE jobs SET state = 'running', attempts = attempts + 1, node_id = $2::text, runner = $3::text, progress = 0,
                  error_code = NULL, error_message = NULL,
                  started_at = COALESCE(started_at, now()), updated_at = now(), last_event_id = last_event_id + 1
  WHERE job_id = $1::text AND state IN ('queued', 'retrying') AND attempts < max_attempts
  RETURNING *
), e AS (${EVENT_FROM_J}
)
SELECT * FROM j`;

const COMPLETE_SQL = `
WITH j AS (
  UPDATE jobs SET state = 'completed', progress = 1, error_code = NULL, error_message = NULL,
                  node_id = COALESCE($2::text, node_id),
                  result_sha256 = $3::text, result_path = $4::text, result_bytes = $5::bigint,
                  result_audio_seconds = $6::double precision, result_format = $7::text, result_sample_rate = $8::integer,
                  result_content_type = $9::text, result_voice = $10::text, result_engine = $11::text, result_clone = $12::jsonb,
                  result_words = $15::text::jsonb,
                  finished_at = now(), updated_at = now(), last_event_id = last_event_id + 1
  WHERE job_id = $1::text AND ${NOT_FINISHED} AND ${fenced('$13', '$14')}
  RETURNING *
), e AS (${EVENT_FROM_J}
)
SELECT * FROM j`;

/**
 * Ends the running attempt of the jobs `where` selects: back to the queue (retrying) while attempts
 * remain, else failed, with the error code and message of parameters `code` and `message`.
 */
const retryOrFailSql = (where: string, code: string, message: string): string => `
WITH j AS (
  UPDATE jobs SET state = CASE WHEN attempts >= max_attempts THEN 'failed' ELSE 'retrying' END,
                  finished_at = CASE WHEN attempts >= max_attempts THEN now() ELSE NULL END,
                  progress = 0, error_code = ${code}::text, error_message = ${message}::text, runner = NULL,
                  updated_at = now(), last_event_id = last_event_id + 1
  WHERE ${where}
  RETURNING *
), e AS (${EVENT_FROM_J}
)
SELECT * FROM j`;

// A failed attempt of one job, while it is still that attempt (and, given, that runner's).
const RETRY_SQL = retryOrFailSql(`job_id = $1::text AND state = 'running' AND attempts = $2::integer AND ($5::text IS NULL OR runner = $5::text)`, '$3', '$4');

// Every running job no live scheduler runs (a scheduler restarted or died).
const REQUEUE_ABANDONED_SQL = retryOrFailSql(`state = 'running' AND ${ABANDONED}`, '$1', '$2');

const FAIL_SQL = `
WITH j AS (
  UPDATE jobs SET state = 'failed', error_code = $2::text, error_message = $3::text,
                  finished_at = now(), updated_at = now(), last_event_id = last_event_id + 1
  WHERE job_id = $1::text AND ${NOT_FINISHED} AND ${fenced('$4', '$5')}
  RETURNING *
), e AS (${EVENT_FROM_J}
)
SELECT * FROM j`;

const CANCEL_SQL = `
WITH j AS (
  UPDATE jobs SET state = 'cancelled', error_code = NULL, error_message = NULL,
                  finished_at = now(), updated_at = now(), last_event_id = last_event_id + 1
  WHERE job_id = $1::text AND ${NOT_FINISHED}
  RETURNING *
), e AS (${EVENT_FROM_J}
)
SELECT * FROM j`;

function insertParams(job: NewJob): SqlParam[] {
  const s = job.spec;
  return [
    job.jobId,
    job.ownerId,
    job.ownerKind,
    job.tier,
    job.priority,
    job.requestId,
    job.maxAttempts,
    s.text,
    s.text.length,
    s.voice,
    s.engine,
    s.speed,
    s.format,
    s.sampleRate,
    s.language,
    s.mode,
    s.consentConfirmed,
    s.instructions,
    s.rawText,
    s.clone?.audioBase64 ?? null,
    s.clone?.filename ?? null,
    s.clone?.referenceId ?? null,
  ];
}

/** A spec's lexicon as stored: JSON with the API's field names, null when there is none. */
function lexiconParam(s: JobSpecFields): string | null {
  if (s.lexicon === undefined || s.lexicon.length === 0) return null;
  return JSON.stringify(s.lexicon.map((e) => ({ word: e.word, ipa: e.ipa ?? null, respelling: e.respelling ?? null, case_sensitive: e.caseSensitive })));
}

/** The stored lexicon of a job row (jsonb, or its text on drivers that return it unparsed). */
function lexiconOfRow(value: unknown): LexiconEntry[] | undefined {
  if (value === null || value === undefined) return undefined;
  const list = (typeof value === 'string' ? JSON.parse(value) : value) as { word: string; ipa: string | null; respelling: string | null; case_sensitive: boolean }[];
  return list.map((e) => ({ word: e.word, ...(e.ipa === null ? {} : { ipa: e.ipa }), ...(e.respelling === null ? {} : { respelling: e.respelling }), caseSensitive: e.case_sensitive }));
}

/** An attempt's identity: the scheduler incarnation running it and its attempt number. */
export interface AttemptFence {
  readonly runner: string;
  readonly attempt: number;
}

/** Reads and writes `jobs` and `job_events`. */
export class JobRepository {
  constructor(private readonly db: Database) {}

  /** Records a new job in state queued with its event 1 ("queued"). Rejects (23505) on a duplicate id. */
  async insert(job: NewJob): Promise<JobRecord> {
    const rows = await this.db.query<JobRow>(INSERT_SQL, [...insertParams(job), lexiconParam(job.spec), job.spec.watermarkPayload ?? null]);
    return toRecord(rows[0]!);
  }

  /**
   * Records a job that is dispatched as it is submitted: state running on `nodeId` (attempt 1) under
   * scheduler incarnation `runner`, with events 1 "queued" and 2 "running". Rejects (23505) on a
   * duplicate id.
   */
  async insertRunning(job: NewJob, nodeId: string, runner: string): Promise<JobRecord> {
    const rows = await this.db.query<JobRow>(INSERT_RUNNING_SQL, [...insertParams(job), nodeId, runner, lexiconParam(job.spec), job.spec.watermarkPayload ?? null]);
    return toRecord(rows[0]!);
  }

  /** The job, or null. */
  async find(jobId: string): Promise<JobRecord | null> {
    const rows = await this.db.query<JobRow>('SELECT * FROM jobs WHERE job_id = $1::text', [jobId]);
    return rows[0] === undefined ? null : toRecord(rows[0]);
  }

  /**
   * Dispatches a waiting job to `nodeId` under scheduler incarnation `runner`: queued/retrying ->
   * running, attempts + 1. Resolves to the job, or null when it is not waiting (already running,
   * finished, cancelled) or has no attempt left.
   */
  async claim(jobId: string, nodeId: string, runner: string): Promise<JobRecord | null> {
    const rows = await this.db.query<JobRow>(CLAIM_SQL, [jobId, nodeId, runner]);
    return rows[0] === undefined ? null : toRecord(rows[0]);
  }

  /**
   * Completes an unfinished job with its result. Idempotent: when the job is already finished
   * (completed by an earlier call, failed or cancelled) nothing changes and `changed` is false.
   * With `fence`, only while the job still runs that attempt under that runner (else `changed` is
   * false too). Resolves to null only when the job does not exist.
   */
  async complete(jobId: string, result: JobResultFields, nodeId: string | null = null, fence?: AttemptFence): Promise<JobTransition | null> {
    const rows = await this.db.query<JobRow>(COMPLETE_SQL, [
      jobId,
      nodeId,
      result.sha256,
      result.path,
      result.bytes,
      result.audioSeconds,
      result.format,
      result.sampleRate,
      result.contentType,
      result.voice,
      result.engine,
      result.clone ? JSON.stringify(result.clone) : null,
      fence?.runner ?? null,
      fence?.attempt ?? null,
      result.words && result.words.length > 0 ? JSON.stringify(result.words) : null,
    ]);
    return this.transition(jobId, rows);
  }

  /**
   * Ends attempt `attempt` of a running job with a retryable failure: retrying while attempts
   * remain, failed (with `errorCode`) after the last. Null when that attempt is no longer current
   * (or, given `runner`, no longer runs under it).
   */
  async retryOrFail(jobId: string, attempt: number, errorCode: string, errorMessage: string, runner: string | null = null): Promise<JobRecord | null> {
    const rows = await this.db.query<JobRow>(RETRY_SQL, [jobId, attempt, errorCode, errorMessage, runner]);
    return rows[0] === undefined ? null : toRecord(rows[0]);
  }

  /**
   * Puts every running job whose scheduler holds no live lease back in the queue (retrying, or
   * failed when out of attempts): after this scheduler restarts (its new lease replaced the old
   * incarnation's) or another one died. Jobs of live schedulers are left alone. Resolves to the
   * jobs changed.
   */
  async requeueAbandoned(errorCode: string, errorMessage: string): Promise<JobRecord[]> {
    const rows = await this.db.query<JobRow>(REQUEUE_ABANDONED_SQL, [errorCode, errorMessage]);
    return rows.map(toRecord);
  }

  /** Fails an unfinished job for good (a non-retryable error); with `fence`, only that running attempt. */
  async fail(jobId: string, errorCode: string, errorMessage: string, fence?: AttemptFence): Promise<JobTransition | null> {
    const rows = await this.db.query<JobRow>(FAIL_SQL, [jobId, errorCode, errorMessage, fence?.runner ?? null, fence?.attempt ?? null]);
    return this.transition(jobId, rows);
  }

  /** Cancels an unfinished job; `changed` is false when it had already finished. Null when unknown. */
  async cancel(jobId: string): Promise<JobTransition | null> {
    const rows = await this.db.query<JobRow>(CANCEL_SQL, [jobId]);
    return this.transition(jobId, rows);
  }

  /**
   * Jobs waiting for dispatch, most urgent first, then oldest first; with `minAgeSeconds`, only
   * those that entered their waiting state at least that long ago.
   */
  async listWaiting(minAgeSeconds = 0): Promise<WaitingJob[]> {
    const rows = await this.db.query<{ job_id: string; priority: number; voice: string; engine: string; characters: number }>(
      `SELECT job_id, priority, voice, engine, characters FROM jobs
       WHERE state IN ('queued', 'retrying') AND updated_at <= now() - make_interval(secs => $1::double precision)
       ORDER BY priority, created_at, job_id`,
      [minAgeSeconds],
    );
    return rows.map((r) => ({ jobId: r.job_id, priority: r.priority, voice: r.voice, engine: r.engine, characters: r.characters }));
  }

  /**
   * Running jobs nobody will finish: those of scheduler incarnation `runner` not updated for
   * `idleSeconds` (this scheduler lost their outcome), and those whose runner holds no live lease
   * (that scheduler is gone).
   */
  async listOrphans(runner: string, idleSeconds: number): Promise<{ jobId: string; attempts: number; runner: string | null }[]> {
    const rows = await this.db.query<{ job_id: string; attempts: number; runner: string | null }>(
      `SELECT job_id, attempts, runner FROM jobs
       WHERE state = 'running'
         AND ((runner = $1::text AND updated_at < now() - make_interval(secs => $2::double precision))
              OR (runner IS DISTINCT FROM $1::text AND ${ABANDONED}))`,
      [runner, idleSeconds],
    );
    return rows.map((r) => ({ jobId: r.job_id, attempts: r.attempts, runner: r.runner }));
  }

  /** An owner's jobs (of one owner kind, when given), most recent first. */
  async listByOwner(ownerId: string, limit: number, ownerKind?: JobOwnerKind): Promise<JobRecord[]> {
    const rows = await this.db.query<JobRow>(
      `SELECT * FROM jobs WHERE owner_id = $1::text AND ($3::text IS NULL OR owner_kind = $3::text)
       ORDER BY created_at DESC, job_id DESC LIMIT $2::integer`,
      [ownerId, limit, ownerKind ?? null],
    );
    return rows.map(toRecord);
  }

  /** Up to `limit` events of a job with an id above `afterEventId`, ascending. */
  async events(jobId: string, afterEventId: number, limit: number): Promise<JobEventRecord[]> {
    const rows = await this.db.query<EventRow>(
      `SELECT job_id, event_id, at, kind, payload FROM job_events
       WHERE job_id = $1::text AND event_id > $2::integer ORDER BY event_id LIMIT $3::integer`,
      [jobId, afterEventId, limit],
    );
    return rows.map(toEvent);
  }

  /** Waiting and running jobs. */
  async counts(): Promise<JobCounts> {
    const rows = await this.db.query<{ waiting: number; running: number; waiting_chars: number }>(
      `SELECT count(*) FILTER (WHERE state IN ('queued', 'retrying'))::int8 AS waiting,
              count(*) FILTER (WHERE state = 'running')::int8 AS running,
              COALESCE(sum(characters) FILTER (WHERE state IN ('queued', 'retrying')), 0)::int8 AS waiting_chars
       FROM jobs WHERE state IN ('queued', 'running', 'retrying')`,
    );
    const r = rows[0];
    return { waiting: r?.waiting ?? 0, running: r?.running ?? 0, waitingCharacters: r?.waiting_chars ?? 0 };
  }

  private async transition(jobId: string, rows: JobRow[]): Promise<JobTransition | null> {
    if (rows[0] !== undefined) return { job: toRecord(rows[0]), changed: true };
    const current = await this.find(jobId);
    return current === null ? null : { job: current, changed: false };
  }
}
