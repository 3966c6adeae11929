import type { Logger } from '@tts/common';
import type { SchedulerConfig } from '../config.js';
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
  readonly logger: Logger;
}
