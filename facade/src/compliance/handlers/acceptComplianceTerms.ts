import { TtsError } from '@tts/common';
import { ownerKeyIdOf } from '../../identity/owner.js';
import { currentTerms, TERMS, termsSha256 } from '../terms.js';
import { callerOf } from '../../middleware/access.js';
import { handler } from '../../handler-context.js';

/**
 * POST /api/compliance/terms/accept: records that the calling API key or studio user accepts the current terms
 * version (idempotent: accepting again answers the first acceptance).
 */
export const acceptComplianceTerms = handler('acceptComplianceTerms', ['compliance'], async ({ body, res, deps, requestId }) => {
  const version = TERMS.find((t) => t.version === body.version);
  if (!version) throw new TtsError('TERMS_VERSION_UNKNOWN', `Terms version "${body.version}" does not exist.`, { loc: ['body', 'version'] });
  if (version !== currentTerms()) throw new TtsError('TERMS_VERSION_OUTDATED', `Version ${version.version} is not current; the current one is ${currentTerms().version}.`, { loc: ['body', 'version'] });
  const caller = callerOf(res);
  const subject = caller.method === 'studio' ? { subjectType: 'studio_user' as const, subjectId: caller.principal.user.userId } : { subjectType: 'api_key' as const, subjectId: ownerKeyIdOf(caller) };
  const { acceptance, created } = await deps.compliance.accept({ ...subject, termsVersion: version.version, termsSha256: termsSha256(version) }, requestId);
  res.status(created ? 201 : 200).json({
    accepted: true,
    version: acceptance.termsVersion,
    sha256: acceptance.termsSha256,
    accepted_at: acceptance.acceptedAt.toISOString(),
    subject_type: acceptance.subjectType,
    subject_id: acceptance.subjectId,
  });
});
