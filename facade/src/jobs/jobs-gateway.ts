/**
 * Asynchronous jobs as the facade sees them: submitted to and read from the scheduler over gRPC,
 * rendered as JSON records, with their audio streamed back from the scheduler's artifact store.
 */
import { Metadata, type ClientReadableStream } from '@grpc/grpc-js';
import { JobOwnerKind, JobState, type Job, type JobAudioChunk, type JobEvent, type JobSpec } from '@tts/proto/scheduler';
import type { CloneReport } from '@tts/proto/synthesis';
import { TtsError, callUnary, schedulerClient, fromServiceError, formatOf, isTerminalJobState } from '@tts/common';
import type { ProvenanceMarks } from '../compliance/provenance.js';
import type { JobOwner } from '../identity/owner.js';

/** Lower-case state names used on the wire. */
export function stateName(state: JobState): string {
  switch (state) {
    case JobState.JOB_STATE_QUEUED: return 'queued';
    case JobState.JOB_STATE_RUNNING: return 'running';
    case JobState.JOB_STATE_RETRYING: return 'retrying';
    case JobState.JOB_STATE_COMPLETED: return 'completed';
    case JobState.JOB_STATE_FAILED: return 'failed';
    case JobState.JOB_STATE_CANCELLED: return 'cancelled';
    default: return 'unknown';
  }
}

/**
 * Throws unless the job has completed: JOB_FAILED, JOB_CANCELLED or JOB_NOT_READY (all 409);
 * `what` names what the caller asked for (audio, captions).
 */
export function requireCompleted(job: Job, what: string): void {
  if (job.state === JobState.JOB_STATE_FAILED) throw new TtsError('JOB_FAILED', `The job failed (${job.errorCode || 'unknown error'}), so it has no ${what}.`);
  if (job.state === JobState.JOB_STATE_CANCELLED) throw new TtsError('JOB_CANCELLED', `The job was cancelled, so it has no ${what}.`);
  if (job.state !== JobState.JOB_STATE_COMPLETED) throw new TtsError('JOB_NOT_READY', `The job is ${stateName(job.state)}; its ${what} can be fetched once it has completed.`, { retryAfterSec: 1 });
}

const iso = (ms: number): string | null => (ms > 0 ? new Date(ms).toISOString() : null);

/** A job as JSON; `links` point at the family's own status and audio routes. */
export function jobJson(job: Job, links: { self: string; audio: string; events?: string }): Record<string, unknown> {
  const r = job.result;
  return {
    job_id: job.jobId,
    status: stateName(job.state),
    progress: job.progress,
    created_at: iso(job.createdUnixMs),
    started_at: iso(job.startedUnixMs),
    finished_at: iso(job.finishedUnixMs),
    attempts: job.attempts,
    characters: job.characters,
    voice: r?.voice || job.spec?.speech?.voice || null,
    format: formatOf(job.spec?.speech?.encoding ?? 0) ?? 'wav',
    error: job.state === JobState.JOB_STATE_FAILED || job.state === JobState.JOB_STATE_CANCELLED ? { code: job.errorCode || (job.state === JobState.JOB_STATE_CANCELLED ? 'JOB_CANCELLED' : 'JOB_FAILED'), message: job.errorMessage || null } : null,
    result: r && job.state === JobState.JOB_STATE_COMPLETED
      ? { content_type: r.contentType, audio_seconds: r.audioSeconds, sample_rate: r.sampleRate, size_bytes: r.sizeBytes, sha256: r.sha256, engine: r.engine, voice: r.voice, clone: r.clone ? cloneReportJson(r.clone) : null }
      : null,
    last_event_id: job.lastEventId,
    links: { ...links, ...(job.state === JobState.JOB_STATE_COMPLETED ? {} : { audio: null }) },
  };
}

/** A job event as JSON. */
export function eventJson(e: JobEvent): Record<string, unknown> {
  let payload: unknown = {};
  try {
    payload = e.payloadJson === '' ? {} : JSON.parse(e.payloadJson);
  } catch {
    payload = {};
  }
  return {
    event_id: e.eventId,
    at: new Date(e.atUnixMs).toISOString(),
    kind: e.kind,
    status: stateName(e.state),
    progress: e.progress,
    node_id: e.nodeId || null,
    attempt: e.attempt,
    error_code: e.errorCode || null,
    payload,
  };
}

/** The facade's client of the scheduler's job API. */
export class JobsGateway {
  /**
   * `internalToken`: the platform credential the scheduler requires (TTS_INTERNAL_TOKEN); `marks`:
   * the provenance payload a job's audio is marked with, named by its submitting request.
   */
  constructor(
    private readonly schedulerAddress: string,
    private readonly marks: ProvenanceMarks,
    private readonly internalToken?: string,
  ) {}

  private get client() {
    return schedulerClient(this.schedulerAddress, this.internalToken === undefined ? undefined : { kind: 'internal', token: this.internalToken });
  }

  /** Queues a job. */
  async submit(spec: JobSpec, owner: JobOwner, requestId: string): Promise<Job> {
    const c = this.client;
    const marked = spec.speech ? { ...spec, speech: { ...spec.speech, watermarkPayload: this.marks.payloadOf(requestId) } } : spec;
    const res = await callUnary(c.submitJob.bind(c), { spec: marked, ownerId: owner.id, ownerKind: owner.kind, tier: owner.tier, requestId }, { timeoutMs: 10_000 });
    if (!res.job) throw new TtsError('INTERNAL_ERROR');
    return res.job;
  }

  /** The job, or undefined when there is none with this id. */
  async get(jobId: string): Promise<Job | undefined> {
    const c = this.client;
    try {
      return (await callUnary(c.getJob.bind(c), { jobId }, { timeoutMs: 5000 })).job;
    } catch (err) {
      if (err instanceof TtsError && err.code === 'JOB_NOT_FOUND') return undefined;
      throw err;
    }
  }

  /** An owner's most recent jobs (of one owner kind, when given). */
  async list(ownerId: string, limit: number, ownerKind: JobOwnerKind = JobOwnerKind.JOB_OWNER_KIND_UNSPECIFIED): Promise<Job[]> {
    const c = this.client;
    return (await callUnary(c.listJobs.bind(c), { ownerId, limit, ownerKind }, { timeoutMs: 5000 })).jobs;
  }

  /** Cancels a job that has not finished; false when it had already finished. */
  async cancel(jobId: string): Promise<boolean> {
    const c = this.client;
    return (await callUnary(c.cancelJob.bind(c), { jobId }, { timeoutMs: 5000 })).cancelled;
  }

  /** Cancels every unfinished job of an owner (of one kind), up to the 500 most recent; how many. */
  async cancelOwner(ownerId: string, ownerKind: JobOwnerKind): Promise<number> {
    let n = 0;
    for (const job of await this.list(ownerId, 500, ownerKind)) {
      if (!isTerminalJobState(job.state) && (await this.cancel(job.jobId))) n++;
    }
    return n;
  }

  /** Events after `afterEventId`, ascending. */
  async events(jobId: string, afterEventId: number, limit: number): Promise<{ events: JobEvent[]; state: JobState; lastEventId: number }> {
    const c = this.client;
    const res = await callUnary(c.listJobEvents.bind(c), { jobId, afterEventId, limit }, { timeoutMs: 5000 });
    return { events: res.events, state: res.state, lastEventId: res.lastEventId };
  }

  /** Queue depth, running jobs, ready nodes and an ETA. */
  async stats() {
    const c = this.client;
    return callUnary(c.getQueueStats.bind(c), {}, { timeoutMs: 2000 });
  }

  /**
   * A completed job's audio, chunk by chunk (the first carries the result). Throws JOB_NOT_READY /
   * JOB_FAILED / JOB_CANCELLED for jobs without audio, before the first chunk; ends quietly when
   * `signal` aborts (the client went away).
   */
  async *audio(job: Job, signal: AbortSignal): AsyncGenerator<JobAudioChunk> {
    requireCompleted(job, 'audio');
    const c = this.client;
    const call: ClientReadableStream<JobAudioChunk> = c.readJobAudio({ jobId: job.jobId }, new Metadata());
    const onAbort = (): void => call.cancel();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      for await (const chunk of call as AsyncIterable<JobAudioChunk>) yield chunk;
    } catch (err) {
      if (signal.aborted) return;
      throw fromServiceError(err);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }
}

/** The JSON of a clone report. */
export function cloneReportJson(c: CloneReport): Record<string, unknown> {
  const r4 = (x: number): number => Math.round(x * 10_000) / 10_000;
  return {
    voice: c.voice,
    similarity_before: r4(c.similarityBefore),
    similarity_after: r4(c.similarityAfter),
    pitch_semitones: r4(c.pitchSemitones),
    speed: r4(c.speed),
    reference_f0_hz: r4(c.referenceF0Hz),
    voice_f0_hz: r4(c.voiceF0Hz),
    reference_words_per_minute: r4(c.referenceWordsPerMinute),
    voice_words_per_minute: r4(c.voiceWordsPerMinute),
    candidates: c.candidates,
    adapted: c.adapted,
  };
}
