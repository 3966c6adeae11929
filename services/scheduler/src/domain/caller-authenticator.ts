/**
 * How the scheduler checks the API key an internal service presents over gRPC (`x-api-key`; see
 * handlers/callers.ts). The scheduler neither makes nor stores keys: they are the facade's, and
 * the scheduler reads them only through the contract the facade publishes for that purpose (the
 * `api_key_credentials` view; ARCHITECTURE.md, "Tables and the contracts between packages"),
 * implemented by `data/api-key-credentials.ts`.
 */

/** A verified key: the owner and tier its calls act as. */
export interface VerifiedApiKey {
  readonly keyId: string;
  readonly tier: string;
}

/** Why a key was refused. */
export type ApiKeyRefusal = 'invalid' | 'disabled';

/** Checks the API keys of gRPC callers. */
export interface CallerAuthenticator {
  /**
   * The key's id and tier, or why it is refused: 'invalid' when malformed, unknown or with a wrong
   * secret (one answer, so it does not reveal which, taking as long for an unknown key as for a
   * wrong secret); 'disabled' only once the secret is proven, so a disabled key is not revealed to
   * someone without it.
   */
  verifyApiKey(apiKey: string): Promise<VerifiedApiKey | ApiKeyRefusal>;
}
