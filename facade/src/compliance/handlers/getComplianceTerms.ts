import { currentTerms, termsJson } from '../terms.js';
import { handler } from '../../handler-context.js';

/** GET /api/compliance/terms: the current terms (public), with the versions there are. */
export const getComplianceTerms = handler('getComplianceTerms', [], async ({ res }) => {
  res.setHeader('Cache-Control', 'public, max-age=300');
  res.json(termsJson(currentTerms()));
  return Promise.resolve();
});
