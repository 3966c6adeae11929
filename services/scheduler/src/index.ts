/**
 * Scheduler: keeps the membership of inference nodes (self-registration, a static list or the
 * Kubernetes API), routes synchronous requests to them by load, and runs asynchronous synthesis
 * jobs (queue, dispatch, artifacts, events) — tts.v1.Scheduler over gRPC.
 */
export { start, type RunningScheduler, type SchedulerStartOptions } from './server.js';
export { DISCOVERY_MODES, checkCallerCredentials, loadSchedulerConfig, type DiscoveryMode, type SchedulerConfig } from './config.js';
export { ROUTING_POLICIES, createRoutingPolicy, createPlacementPolicy, type RoutingPolicyName } from './domain/routing.js';
export { copyJobs } from './data/copy-jobs.js';
export { SCHEDULER_MIGRATIONS } from './data/migrations/index.js';
