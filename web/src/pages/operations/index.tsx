/**
 * The operations pages for SRE teams (administrator key): service level objectives, usage and
 * cost, nodes and queue, live logs, system. Charts use uPlot, loaded with this chunk only.
 */
export { SloPage } from './slo-page.js';
export { UsagePage } from './usage-page.js';
export { NodesPage } from './nodes-page.js';
export { LogsPage } from './logs-page.js';
export { SystemPage } from './system-page.js';
