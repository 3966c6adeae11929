/**
 * A web job from the browser: the browser check (renewed once if the server refused the pass) for
 * an anonymous visitor, or the studio session / API key header, the submission, then its events
 * until it ends; resolves to the URLs of its audio and captions.
 */
import { ApiError, getJson, postForm, request, type JobEventsPage, type WebJobCreated } from '../../lib/api.js';
import { dropPass, ensurePass } from '../../lib/challenge.js';
import type { Schema } from '../../lib/schema.js';

/** The form of POST /api/web/jobs/tts. */
export type WebJobForm = Schema<'WebJobForm'>;

/** What a running web job reports. */
export interface WebJobProgress {
  onVerifying(): void;
  onQueued(created: WebJobCreated): void;
  onRunning(progress: number): void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Who submits a web job: the anonymous visitor (browser check), the studio session or the API key. */
export type WebJobAuth = 'none' | 'studio' | 'apiKey';

async function submit(fields: WebJobForm, progress: WebJobProgress, auth: WebJobAuth): Promise<WebJobCreated> {
  if (auth !== 'none') return (await request<WebJobCreated>('POST', '/api/web/jobs/tts', { auth, form: fields })).body;
  progress.onVerifying();
  await ensurePass();
  try {
    return (await postForm<WebJobCreated>('/api/web/jobs/tts', fields)).body;
  } catch (err) {
    if (!(err instanceof ApiError) || !err.code.startsWith('AUTH_CHALLENGE')) throw err;
    dropPass();
    await ensurePass();
    return (await postForm<WebJobCreated>('/api/web/jobs/tts', fields)).body;
  }
}

/** A finished web job: the URLs of its audio and captions (job token in the query). */
export interface WebJobDone {
  readonly jobId: string;
  readonly audioUrl: string;
  /** WebVTT and SRT captions from the job's word timings (409 JOB_CAPTIONS_UNAVAILABLE for an engine without them). */
  readonly captionsUrl: { readonly vtt: string; readonly srt: string };
}

/** Longest pause between two polls of a job's events. */
const MAX_POLL_MS = 2000;

/**
 * The next page of a job's events. A 429 (the job-token routes are limited per address: several
 * jobs at once from one network) is waited out for its Retry-After, not shown as a failure.
 */
async function eventsAfter(created: WebJobCreated, after: number): Promise<JobEventsPage> {
  for (;;) {
    try {
      return await getJson<JobEventsPage>(`/api/web/jobs/${created.job_id}/events?after_event_id=${after}`, { 'x-job-token': created.job_token });
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 429) throw err;
      await sleep((err.retryAfterSec ?? 1) * 1000);
    }
  }
}

/**
 * Runs a web job to its end; the URLs of its audio and captions (job token in the query). Throws ApiError.
 * Polls after `pollMs`, then less often (x1.5 per poll, at most every 2 s), so a long job costs its
 * address about 30 calls a minute of the job-token limit (300).
 */
export async function runWebJob(fields: WebJobForm, progress: WebJobProgress, pollMs = 500, auth: WebJobAuth = 'none'): Promise<WebJobDone> {
  const created = await submit(fields, progress, auth);
  progress.onQueued(created);
  let after = 0;
  let pause = pollMs;
  for (;;) {
    const page = await eventsAfter(created, after);
    for (const ev of page.events) {
      after = Math.max(after, ev.event_id);
      if (ev.kind === 'running' || ev.kind === 'completed') progress.onRunning(ev.progress);
      if (ev.kind === 'failed' || ev.kind === 'cancelled') throw new ApiError(500, ev.error_code ?? 'JOB_FAILED', 'The job failed.', undefined);
    }
    if (page.done) break;
    await sleep(pause);
    pause = Math.min(MAX_POLL_MS, pause * 1.5);
  }
  const token = encodeURIComponent(created.job_token);
  const captions = (format: string): string => `/api/web/jobs/${created.job_id}/captions?format=${format}&token=${token}`;
  return { jobId: created.job_id, audioUrl: `/api/web/jobs/${created.job_id}/audio?token=${token}`, captionsUrl: { vtt: captions('vtt'), srt: captions('srt') } };
}
