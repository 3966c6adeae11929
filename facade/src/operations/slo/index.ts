/**
 * Service level objectives of the facade: objectives from TTS_SLO_OBJECTIVES, one SLI per answered
 * request in the shared database (batched off the response path), the dashboard and the
 * multi-window multi-burn-rate alerts.
 */
export { BURN_RATE_RULES, DEFAULT_OBJECTIVES, LATENCY_QUANTILE, objectiveFor, parseObjectives, type BurnRateRule, type Objective, type SloObjectives } from './objectives.js';
export { CLIENT_CLOSED_STATUS, isServiceFailure, OVERLOAD_CODES, statusOfCode } from './classify.js';
export { RouteMatcher, type MatchedRoute } from './routes.js';
export { createSliRecorder, type SliRecorderOptions } from './recorder.js';
export { burnRate, evaluateAlerts, MinuteSeries, type AlertEpisode, type SliKind, type WindowCounts } from './burn-rate.js';
export { SloService, type SliInput, type SloAlert, type SloAlerts, type SloDashboard, type SloFigures, type SloSeries, type SloSeriesPoint, type SloServiceOptions, seriesBucketMinutes } from './service.js';
export { alertsView, dashboardView } from './slo-views.js';
export { sloQuery, SLO_WINDOW, type SloQuery } from './query.js';
