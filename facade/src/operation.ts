/**
 * What every operation handler receives, and the dependencies the facade is built from.
 */
import type { Request, Response } from 'express';
import type { Logger } from '@tts/common';
import type { FacadeConfig } from './config.js';
import type { AccessServices } from './domain/access-services.js';
import type { ClusterView } from './domain/cluster.js';
import type { JobTokens } from './domain/job-tokens.js';
import type { JobsGateway } from './domain/jobs.js';
import type { Metering } from './domain/metering.js';
import type { OpenApiDocument } from './domain/openapi-document.js';
import type { Readiness } from './domain/readiness.js';
import type { SynthesisGateway } from './domain/synthesis.js';
import type { CleanupService } from './domain/cleanup.js';
import type { LogStreamHub } from './domain/log-stream.js';
import type { SloService } from './slo/service.js';

/** Long-lived dependencies of the facade. */
export interface FacadeDeps {
  readonly config: FacadeConfig;
  readonly gateway: SynthesisGateway;
  readonly cluster: ClusterView;
  readonly readiness: Readiness;
  readonly openapi: OpenApiDocument;
  readonly access: AccessServices;
  readonly metering: Metering;
  readonly jobs: JobsGateway;
  readonly jobTokens: JobTokens;
  readonly logger: Logger;
  /** SLIs, SLO dashboard and alerts. */
  readonly slo: SloService;
  /** Retention of artifacts and SLI rows. */
  readonly cleanup: CleanupService;
  /** Open GET /api/logs/stream responses (ended at shutdown). */
  readonly logStreams: LogStreamHub;
}

/** One request as a handler sees it. */
export interface HandlerContext {
  readonly req: Request;
  readonly res: Response;
  readonly deps: FacadeDeps;
  readonly requestId: string;
  /** Aborted when the client goes away before the response is complete. */
  readonly signal: AbortSignal;
}

/** A handler of one OpenAPI operation: parse, call a domain function, shape the answer. */
export type OperationHandler = (ctx: HandlerContext) => Promise<void>;
