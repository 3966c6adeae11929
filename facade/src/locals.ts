/**
 * What the facade's middleware keeps on a response for the rest of the request (`res.locals`),
 * typed by declaration merging so every reader and writer agrees on names and types.
 */
import type { RateLimitDecision } from '@tts/common/kv';
import type { Caller } from './middleware/access.js';
import type { UploadedFile } from './middleware/uploads.js';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace -- Express types res.locals through this namespace
  namespace Express {
    interface Locals {
      /** The request id, made by the platform (middleware/request-id.ts). */
      requestId?: string;
      /** The client's own id of the request (X-Correlation-Id or X-Request-Id), when well-formed; never a key. */
      correlationId?: string;
      /** When the facade received the request, performance.now() (middleware/telemetry.ts). */
      startedAt?: number;
      /** W3C trace id of the request, when telemetry is on. */
      traceId?: string;
      /** Catalogue code of the error the response answers (read when the SLI is recorded). */
      errorCode?: string;
      /** Who called (middleware/access.ts; absent for public operations). */
      caller?: Caller;
      /** The rate-limit decision of a credentialed call. */
      rateLimit?: RateLimitDecision;
      /** Files of a multipart request, on disk until the response ends (middleware/uploads.ts). */
      uploads?: readonly UploadedFile[];
    }
  }
}
