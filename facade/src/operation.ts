/**
 * What every operation handler receives, and the dependencies the facade is built from.
 */
import type { Request, Response } from 'express';
import type { Logger } from '../../services/common/src/logging/logger.js';
import type { FacadeConfig } from './config.js';
import type { AccessServices } from './domain/access-services.js';
import type { ClusterView } from './domain/cluster.js';
import type { Metering } from './domain/metering.js';
import type { OpenApiDocument } from './domain/openapi-document.js';
import type { Readiness } from './domain/readiness.js';
import type { SynthesisGateway } from './domain/synthesis.js';

/** Long-lived dependencies of the facade. */
export interface FacadeDeps {
  readonly config: FacadeConfig;
  readonly gateway: SynthesisGateway;
  readonly cluster: ClusterView;
  readonly readiness: Readiness;
  readonly openapi: OpenApiDocument;
  readonly access: AccessServices;
  readonly metering: Metering;
  readonly logger: Logger;
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
