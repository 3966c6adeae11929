import type { Logger } from '@tts/common';
import type { SchedulerConfig } from '../config.js';
import type { CallerAuthenticator } from './caller-authenticator.js';
import type { JobService } from './jobs/job-service.js';
import type { Membership } from './membership.js';
import type { RoutingPolicy } from './routing.js';

/** State shared by the scheduler's handlers. */
export interface SchedulerContext {
  readonly config: SchedulerConfig;
  readonly membership: Membership;
  /** Routing of synchronous requests (PickNode). */
  readonly policy: RoutingPolicy;
  /** Asynchronous jobs. */
  readonly jobs: JobService;
  /** Checks the API keys gRPC callers present (the facade's published credentials). */
  readonly callers: CallerAuthenticator;
  readonly logger: Logger;
}
