import { abuseReportJson } from '../abuse-reports.js';
import { enforcePublicRate } from '../../middleware/access.js';
import { handler } from '../../handler-context.js';

/**
 * POST /api/compliance/abuse/report (public, counted against the public rate profile): files a
 * report; an audio sample is checked for the platform's watermark.
 */
export const createAbuseReport = handler('createAbuseReport', ['abuseReports', 'access'], async ({ req, body, res, deps, requestId, signal }) => {
  // Its own counter under the public profile: fetching challenges does not use up reports.
  await enforcePublicRate(res, deps.access, `abuse-report:${req.ip ?? ''}`);
  const report = await deps.abuseReports.file({
    category: body.category,
    description: body.description,
    reporterContact: body.reporter_contact,
    requestId: body.request_id,
    evidenceUrl: body.evidence_url,
    audioSampleBase64: body.audio_sample_base64,
  }, requestId, signal);
  res.status(201).json(abuseReportJson(report, false));
});
