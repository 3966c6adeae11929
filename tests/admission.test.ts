/**
 * Admission (issue 16, item 3) on a real platform: a scheduler, one inference node with one flite
 * slot and the facade, all real. Long texts saturate the node; then a request whose estimated
 * queue wait plus its own synthesis exceeds its budget (a share of the facade's deadline) is
 * refused at once with 503 TTS_OVERLOADED and Retry-After, on `POST /api/tts` and on
 * `POST /v1/audio/speech`, while a short one that fits behind the same queue is served. Jobs: a
 * job that would queue behind more than SCHEDULER_JOB_MAX_QUEUE_WAIT_SEC of estimated work is
 * refused the same way, and accepted again once the queue is within the bound.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startPlatform, waitFor, type TestPlatform } from './support/platform.js';
import { harvardText } from './support/text.js';

const VOICE = 'flite:slt';
/** The facade's deadline of one synchronous synthesis; admission's budget is 0.8 of it. */
const TIMEOUT_MS = 4000;
const BUDGET_SEC = (0.8 * TIMEOUT_MS) / 1000;
/** The scheduler's bound of a job's estimated queue wait. */
const JOB_QUEUE_BOUND_SEC = 1;

/** flite's figures in the node's last report, as the scheduler (and so the facade) holds them. */
function fliteLoad(p: TestPlatform): { capacity: number; queuedWorkSeconds: number; secondsPerChar: number } {
  const node = p.scheduler.context.membership.ready()[0];
  const flite = node?.status.engines.find((e) => e.name === 'flite');
  assert.ok(flite, 'the node reports flite');
  return flite;
}

describe('admission: refuse at once what the queue would make late', () => {
  let p: TestPlatform;

  before(async () => {
    p = await startPlatform({
      node: { engines: ['flite'], fliteWorkers: 1 },
      facade: { requestTimeoutMs: TIMEOUT_MS, admission: true, admissionBudgetShare: 0.8 },
      scheduler: { jobMaxQueueWaitSec: JOB_QUEUE_BOUND_SEC },
    });
    // Teach the node flite's speed on texts like the ones below (its moving average of seconds per
    // character), through jobs: they have no deadline, so a busy machine cannot cut the lesson short.
    for (let i = 0; i < 3; i++) {
      const res = await p.post('/api/jobs/tts', { text: harvardText(600), voice: VOICE, format: 'wav' });
      assert.equal(res.status, 202, await res.clone().text());
      const { job_id: jobId } = (await res.json()) as { job_id: string };
      await waitFor(async () => ((await (await p.get(`/api/jobs/${jobId}`)).json()) as { status: string }).status === 'completed', 60_000, 'a lesson job to complete');
    }
    await waitFor(() => fliteLoad(p).secondsPerChar > 0 && fliteLoad(p).queuedWorkSeconds === 0, 5000, 'the node to report flite idle');
  });

  after(async () => {
    await p.stop();
  });

  test('the node reports each engine\'s slots, queued work and seconds per character', () => {
    const flite = fliteLoad(p);
    assert.equal(flite.capacity, 1);
    assert.ok(flite.secondsPerChar > 0 && flite.secondsPerChar < 0.05, `flite seconds per character ${flite.secondsPerChar}`);
  });

  test('under saturation a request that would miss its deadline gets 503 TTS_OVERLOADED with Retry-After at once; one that fits is served', async () => {
    const spc = fliteLoad(p).secondsPerChar;
    // The work ahead: one job of about 0.75 of the budget on the node's one flite slot (a job is not
    // subject to the synchronous admission, so it is there whatever speed the node measures now).
    // A text whose own synthesis is twice the budget (or at least 0.75 of it, below) is admitted only
    // while at most a quarter of the budget of work is ahead of it, so it is refused; a short text
    // fits behind the job.
    // 0.75 of the budget: when the long texts arrive (a report and 700 ms after the job began) well
    // over a quarter of the budget is still ahead on a slow machine too, and the short text still
    // fits behind it within the deadline.
    const backgroundChars = Math.min(9000, Math.round((0.75 * BUDGET_SEC) / spc));
    // At most 4000 characters (the OpenAI route takes 4096, the tier 5000): a text of at least 0.75
    // of the budget is refused alike behind more than a quarter of the budget of work.
    const longChars = Math.min(4000, Math.round((2 * BUDGET_SEC) / spc));
    const submitted = await p.post('/api/jobs/tts', { text: harvardText(backgroundChars), voice: VOICE, format: 'wav' });
    assert.equal(submitted.status, 202, await submitted.clone().text());
    const background = (await submitted.json()) as { job_id: string };
    try {
      // The node has the work (its report now counts it), and well over a quarter of the budget remains.
      await waitFor(() => fliteLoad(p).queuedWorkSeconds > 0.35 * BUDGET_SEC, 5000, 'the node to report the queued work');
      // Past the 500 ms in which the facade also counts the work it routed just before a report
      // (which the node may not have counted yet), so the estimate is the node's own.
      await new Promise((resolve) => setTimeout(resolve, 700));
      const started = performance.now();
      const [refused, refusedOpenAi, served] = await Promise.all([
        p.post('/api/tts', { text: harvardText(longChars), voice: VOICE, format: 'wav' }),
        p.post('/v1/audio/speech', { model: 'tts-1', input: harvardText(longChars), voice: VOICE, response_format: 'wav' }),
        p.post('/api/tts', { text: 'Hello world.', voice: VOICE, format: 'wav' }),
      ]);
      const refusedBody = (await refused.json()) as { code: string };
      const refusedMs = performance.now() - started;
      assert.equal(refused.status, 503, JSON.stringify(refusedBody));
      assert.equal(refusedBody.code, 'TTS_OVERLOADED');
      const retryAfter = Number(refused.headers.get('retry-after'));
      assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 10, `Retry-After ${refused.headers.get('retry-after')}`);

      const openAiBody = (await refusedOpenAi.json()) as { error: { type: string; platform_code: string } };
      assert.equal(refusedOpenAi.status, 503, JSON.stringify(openAiBody));
      assert.equal(openAiBody.error.platform_code, 'TTS_OVERLOADED');
      assert.equal(openAiBody.error.type, 'server_error');
      assert.ok(Number(refusedOpenAi.headers.get('retry-after')) >= 1);

      assert.equal(served.status, 200, await served.clone().text());
      assert.ok((await served.arrayBuffer()).byteLength > 1000);
      // Refused without waiting for the queue (which the short request had to).
      assert.ok(refusedMs < TIMEOUT_MS, `refused after ${Math.round(refusedMs)} ms`);
    } finally {
      await waitFor(async () => ['completed', 'failed'].includes(((await (await p.get(`/api/jobs/${background.job_id}`)).json()) as { status: string }).status), 30_000, 'the background job');
    }
  });

  test('a job that would queue behind more than the bound is refused with 503 TTS_OVERLOADED and Retry-After; accepted again once the queue drains', async () => {
    const spc = fliteLoad(p).secondsPerChar;
    // A running job of about three times the bound: the next one would wait that long.
    const first = await p.post('/api/jobs/tts', { text: harvardText(Math.min(9000, Math.round((3 * JOB_QUEUE_BOUND_SEC) / spc))), voice: VOICE, format: 'wav' });
    assert.equal(first.status, 202, await first.clone().text());
    const job = (await first.json()) as { job_id: string };

    const refused = await p.post('/api/jobs/tts', { text: 'Hello world.', voice: VOICE, format: 'wav' });
    const body = (await refused.json()) as { code: string };
    assert.equal(refused.status, 503, JSON.stringify(body));
    assert.equal(body.code, 'TTS_OVERLOADED');
    assert.ok(Number(refused.headers.get('retry-after')) >= 1, `Retry-After ${refused.headers.get('retry-after')}`);

    const webRefused = await fetch(`${p.url}/api/web/jobs/tts`, { method: 'POST', headers: { 'x-api-key': p.apiKey }, body: new URLSearchParams({ text: 'Hello world.', voice: VOICE }) });
    assert.equal(webRefused.status, 503, await webRefused.clone().text());
    assert.equal(((await webRefused.json()) as { code: string }).code, 'TTS_OVERLOADED');

    await waitFor(async () => ((await (await p.get(`/api/jobs/${job.job_id}`)).json()) as { status: string }).status === 'completed', 30_000, 'the first job to complete');
    // The estimate is re-read at most once a second.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const accepted = await p.post('/api/jobs/tts', { text: 'Hello world.', voice: VOICE, format: 'wav' });
    assert.equal(accepted.status, 202, await accepted.clone().text());
  });
});
