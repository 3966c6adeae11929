/**
 * The REST and OpenAI-compatible facade: Express 5 validated by one OpenAPI 3.1 document,
 * reaching synthesis only through gRPC (scheduler -> inference node).
 */
export { start, type FacadeStartOptions, type RunningFacade } from './server.js';
export { loadFacadeConfig, type FacadeConfig } from './config.js';
export { FACADE_MIGRATIONS } from './data/migrations/index.js';
export { parseAddressRanges, parseTrustedProxies, type AddressRanges, type TrustedProxies } from './middleware/client-address.js';
export { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS, parseCorsOrigins } from './middleware/cors.js';
export { createApp } from './app.js';
