/**
 * The versioned terms of service. Versions only add: a new version is appended (the last is the
 * current one) and older ones stay readable, since acceptances name the version accepted.
 */
import { createHash } from 'node:crypto';

/** One version of the terms. */
export interface TermsVersion {
  readonly version: string;
  /** Day it applies from (UTC, YYYY-MM-DD). */
  readonly effectiveDate: string;
  readonly title: string;
  readonly sections: readonly { readonly heading: string; readonly text: string }[];
}

export const TERMS: readonly TermsVersion[] = Object.freeze([
  {
    version: '2026-11-01',
    effectiveDate: '2026-11-01',
    title: 'Terms of use of the speech synthesis service',
    sections: [
      { heading: 'Consent', text: 'You may only synthesize or clone a real person\'s voice with that person\'s documented consent. Requests that clone a voice must confirm consent (consent_confirmed); every request and its consent flag are recorded in the consent audit.' },
      { heading: 'Provenance', text: 'Every audio the service produces carries an inaudible watermark that identifies the request that produced it. Removing or obscuring it is a breach of these terms.' },
      { heading: 'Prohibited uses', text: 'Impersonation, fraud, harassment, deceptive political content, and content that infringes the rights of others are prohibited. Report abuse with POST /api/compliance/abuse/report.' },
      { heading: 'Data', text: 'Reference clips are kept for the retention time stated by the service (24 hours by default) and are visible only to the API key that uploaded them. Text sent for synthesis is not stored beyond the job records and audits the service documents.' },
      { heading: 'Limits', text: 'Rate limits and quotas apply per API key and tier as published by GET /api/auth/tiers.' },
    ],
  },
] satisfies TermsVersion[]);

/** The current version. */
export function currentTerms(): TermsVersion {
  return TERMS[TERMS.length - 1]!;
}

/** SHA-256 (hex) of a version's canonical text, recorded with each acceptance. */
export function termsSha256(t: TermsVersion): string {
  return createHash('sha256').update(JSON.stringify({ version: t.version, effectiveDate: t.effectiveDate, title: t.title, sections: t.sections })).digest('hex');
}

/** The JSON of a version. */
export function termsJson(t: TermsVersion): Record<string, unknown> {
  return {
    version: t.version,
    effective_date: t.effectiveDate,
    title: t.title,
    sha256: termsSha256(t),
    sections: t.sections.map((s) => ({ heading: s.heading, text: s.text })),
    current: t === currentTerms(),
    versions: TERMS.map((v) => v.version),
  };
}
