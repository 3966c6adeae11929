/**
 * Builds the Express application: request ids, access control, capped body reading, the OpenAPI validator, one route per
 * documented operation, and the one error middleware.
 */
import './locals.js';
import express, { type Express, type RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { accessControl, accessPolicyOf } from './middleware/access.js';
import { errorMiddleware, notFound } from './middleware/errors.js';
import { webApp } from './middleware/web-app.js';
import { apiResponseDefaults, noSniff } from './middleware/security-headers.js';
import { cors } from './middleware/cors.js';
import { requestId, requestIdOf } from './middleware/request-id.js';
import { requestBody } from './middleware/bodies.js';
import { closeSlowLeftovers, type BodyRate } from './middleware/body-rate.js';
import { streamLimit } from './middleware/stream-limit.js';
import { requestTelemetry } from './middleware/telemetry.js';
import { installClientAddress } from './middleware/client-address.js';
import { RouteMatcher } from './operations/slo/routes.js';
import { operationsOf } from './operations/openapi-document.js';
import { servicesFor, type FacadeDeps, type HandlerContext, type OperationHandler, type OperationId } from './handler-context.js';
import { OPERATIONS } from './handler-table.js';
import { TtsError } from '@tts/common';


/**
 * Refuses a query or path number that is not finite (`1e400`, `Infinity`): the validator's
 * coercion lets such values pass bounds checks, and no documented parameter takes one.
 */
function refuseNonFinite(values: Record<string, unknown>, where: 'query' | 'params'): void {
  for (const [name, value] of Object.entries(values)) {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new TtsError('VALIDATION_FAILED', `${name} must be a finite number within its documented range.`, { loc: [where, name] });
  }
}

function route(handler: OperationHandler<OperationId>, deps: FacadeDeps): RequestHandler {
  const services = servicesFor(deps, handler.uses);
  return async (req, res) => {
    refuseNonFinite(req.query, 'query');
    refuseNonFinite(req.params, 'params');
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    // The validator has checked body, query and path against this operation's schemas: the one
    // place where they take their generated types.
    const validated = { body: req.body as unknown, query: req.query as unknown, params: req.params as unknown } as Pick<HandlerContext<OperationId>, 'body' | 'query' | 'params'>;
    await handler.run({ req, res, deps: services, requestId: requestIdOf(res), signal: controller.signal, ...validated });
  };
}

const expressPath = (openApiPath: string): string => openApiPath.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');

/**
 * Registers each operation's access control, the stream cap of a long-lived one
 * (middleware/stream-limit.ts, per credential), then its body reader (middleware/bodies.ts: the
 * operation's media types, size caps and minimum rate). Access control runs before the body is
 * read and validated, so an unauthenticated caller learns nothing about what a valid body looks like.
 */
function registerAccessControl(app: Express, deps: FacadeDeps, rate: BodyRate): void {
  const limits = { maxJsonBytes: deps.config.maxBodyBytes, maxUploadBytes: deps.config.maxUploadBytes, uploadTmpDir: deps.config.uploadTmpDir, rate };
  for (const op of operationsOf(deps.openapi)) {
    const access = accessControl(accessPolicyOf(op.security, op), deps.access);
    if (op.longLived) app[op.method](expressPath(op.path), access, streamLimit(deps.streamSlots), requestBody(op, limits));
    else app[op.method](expressPath(op.path), access, requestBody(op, limits));
  }
}

/** Registers every documented operation's handler; throws when the document and the handler table disagree. */
function registerOperations(app: Express, deps: FacadeDeps): void {
  const documented = operationsOf(deps.openapi);
  const table = OPERATIONS as unknown as Partial<Record<string, OperationHandler<OperationId>>>;
  const missing = documented.filter((o) => !table[o.operationId]).map((o) => o.operationId);
  const extra = Object.keys(table).filter((id) => !documented.some((o) => o.operationId === id));
  if (missing.length > 0 || extra.length > 0) {
    throw new Error(`OpenAPI document and handler table disagree: missing handlers [${missing.join(', ')}], undocumented handlers [${extra.join(', ')}]`);
  }
  for (const op of documented) app[op.method](expressPath(op.path), route(table[op.operationId]!, deps));
}

/** Creates the facade's Express app. */
export function createApp(deps: FacadeDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  installClientAddress(app, deps.config.trustedProxies);
  const rate: BodyRate = { minBytesPerSec: deps.config.minBodyBytesPerSec, windowMs: deps.config.bodyRateWindowMs };
  app.use(noSniff());
  app.use((req, res, next) => {
    closeSlowLeftovers(req, res, rate);
    next();
  });
  app.use(requestId());
  if (deps.config.corsOrigins.length > 0) app.use(cors(deps.config.corsOrigins));
  app.use(requestTelemetry({ routes: new RouteMatcher(deps.openapi), recordSli: (sli) => deps.slo.record(sli) }));
  const web = webApp(deps.config.webDir);
  if (web) app.use(web);
  app.use(apiResponseDefaults());
  registerAccessControl(app, deps, rate);
  app.use(
    OpenApiValidator.middleware({
      apiSpec: structuredClone(deps.openapi.document) as never,
      // Bodies are not coerced (42 is not a string, as pydantic's strict types); query and path
      // parameters are always coerced from their string form by the validator.
      validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false, removeAdditional: false },
      validateResponses: deps.config.validateResponses,
      validateApiSpec: true,
      // Credentials are checked by middleware/access.ts from the same security requirements.
      validateSecurity: false,
      ignoreUndocumented: false,
      // multipart bodies are parsed by middleware/uploads.ts (size cap while streaming, files on disk).
      fileUploader: false,
    }),
  );
  registerOperations(app, deps);
  app.use(notFound());
  app.use(errorMiddleware(deps.logger));
  return app;
}
