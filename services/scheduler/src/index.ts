/**
 * Scheduler: keeps the membership of inference nodes and routes work to them by load
 * (tts.v1.Scheduler over gRPC).
 */
export { start, type RunningScheduler, type SchedulerStartOptions } from './server.js';
export { loadSchedulerConfig, type SchedulerConfig } from './config.js';
export { ROUTING_POLICIES, createRoutingPolicy, type RoutingPolicyName } from './domain/routing.js';
