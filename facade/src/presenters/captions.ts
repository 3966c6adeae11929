/** Writing caption answers: a job's captions as a WebVTT or SubRip attachment. */
import type { Response } from 'express';
import type { Job } from '@tts/proto/scheduler';
import { CAPTION_CONTENT_TYPES, jobCaptions, type CaptionFormat } from '../jobs/captions.js';
import { NO_STORE } from '../middleware/security-headers.js';

/** Sends a job's captions (200, text/vtt or application/x-subrip, as an attachment); throws as `jobCaptions` does. */
export function sendJobCaptions(res: Response, job: Job, format: CaptionFormat): void {
  const body = jobCaptions(job, format);
  res.status(200).type(CAPTION_CONTENT_TYPES[format]);
  res.setHeader('Cache-Control', NO_STORE);
  res.setHeader('Content-Disposition', `attachment; filename="${job.jobId}.${format}"`);
  res.send(body);
}
