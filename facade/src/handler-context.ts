/**
 * What every operation handler receives, and the dependencies the facade is built from. Request
 * bodies, query and path parameters are typed from the OpenAPI document (types generated into
 * `generated/openapi.d.ts` by `npm run codegen`): the validator has checked them against the same
 * document before a handler runs.
 */
import type { Request, Response } from 'express';
import type { Logger } from '@tts/common';
import type { FacadeConfig } from './config.js';
import type { AccessServices } from './identity/access-services.js';
import type { ClusterView } from './cluster/cluster.js';
import type { JobTokens } from './jobs/job-tokens.js';
import type { JobsGateway } from './jobs/jobs-gateway.js';
import type { Metering } from './speech/metering.js';
import type { ProvenanceMarks } from './compliance/provenance.js';
import type { JobUsage } from './jobs/job-usage.js';
import type { OpenApiDocument } from './operations/openapi-document.js';
import type { Readiness } from './cluster/readiness.js';
import type { Speech } from './speech/speak.js';
import type { CleanupService } from './operations/cleanup.js';
import type { LogStreamHub } from './operations/log-stream.js';
import type { StreamSlots } from './operations/stream-slots.js';
import type { SessionLimits } from './realtime/session-limits.js';
import type { SloService } from './operations/slo/service.js';
import type { AnalysisGateway } from './references/audio-analysis.js';
import type { ReferenceService } from './references/references.js';
import type { Lexicons } from './speech/lexicons.js';
import type { AbuseReports } from './compliance/abuse-reports.js';
import type { HubTokenService } from './operations/hub-token.js';
import type { ComplianceRepository } from './data/index.js';
import type { StudioPresets } from './studio/presets.js';
import type { VipService } from './studio/vip.js';
import type { components, operations } from './generated/openapi.js';

/** An operationId of the OpenAPI document. */
export type OperationId = keyof operations;

/** A schema of the OpenAPI document, e.g. `Schema<'TtsRequest'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

type ContentOf<R> = R extends { content: infer C } ? C[keyof C] : never;

/** The validated body of an operation (JSON or form fields); `undefined` for operations without one. */
export type RequestBodyOf<Id extends OperationId> = operations[Id] extends { requestBody: infer R }
  ? ContentOf<R>
  : operations[Id] extends { requestBody?: infer R }
    ? ContentOf<NonNullable<R>> | undefined
    : undefined;

/** The validated (coerced) query parameters of an operation. */
export type QueryOf<Id extends OperationId> = NonNullable<operations[Id]['parameters']['query']>;

/** The path parameters of an operation. */
export type PathOf<Id extends OperationId> = NonNullable<operations[Id]['parameters']['path']>;

/** Long-lived dependencies of the facade. */
export interface FacadeDeps {
  readonly config: FacadeConfig;
  readonly cluster: ClusterView;
  readonly readiness: Readiness;
  readonly openapi: OpenApiDocument;
  readonly access: AccessServices;
  /** The speech use case's metering (its records are drained at shutdown). */
  readonly metering: Metering;
  /** Counts the audio of submitted jobs once they end. */
  readonly jobUsage: JobUsage;
  /** The provenance payloads of requests (keyed with the provenance secret). */
  readonly provenance: ProvenanceMarks;
  readonly jobs: JobsGateway;
  readonly jobTokens: JobTokens;
  readonly logger: Logger;
  /** SLIs, SLO dashboard and alerts. */
  readonly slo: SloService;
  /** Retention of artifacts and SLI rows. */
  readonly cleanup: CleanupService;
  /** Open GET /api/logs/stream responses (ended at shutdown). */
  readonly logStreams: LogStreamHub;
  /** Long-lived streams open per credential (TTS_MAX_STREAMS_PER_CREDENTIAL). */
  readonly streamSlots: StreamSlots;
  /** Places of streaming sessions per caller, and their inactivity time-out (realtime/session-limits.ts). */
  readonly sessionLimits: SessionLimits;
  /** Audio analysis on the inference nodes (reference clips, transcription, watermark detection). */
  readonly analysis: AnalysisGateway;
  /** Reference clips: validation, transcription, the owner's stored clips. */
  readonly references: ReferenceService;
  /** Abuse reports and their review. */
  readonly abuseReports: AbuseReports;
  /** Acceptances of the terms. */
  readonly compliance: ComplianceRepository;
  /** The application's model-hub token. */
  readonly hubToken: HubTokenService;
  /** The studio portal's presets, shares and VIP (accounts and sessions are in `access.studio`). */
  readonly studio: { readonly presets: StudioPresets; readonly vip: VipService };
  /** Pronunciation lexicons of keys, studio users and presets, resolved into speech requests. */
  readonly lexicons: Lexicons;
  /** The speech use case every speech operation calls. */
  readonly speech: Speech;
}

/** One request of operation `Id` as its handler sees it, with the services `D` it declared. */
export interface HandlerContext<Id extends OperationId, D = FacadeDeps> {
  readonly req: Request;
  readonly res: Response;
  /** Only the services the handler named in its `uses` list. */
  readonly deps: D;
  readonly requestId: string;
  /** Aborted when the client goes away before the response is complete. */
  readonly signal: AbortSignal;
  /** The request body, validated against the operation's schema. */
  readonly body: RequestBodyOf<Id>;
  /** The query parameters, validated and coerced to their documented types. */
  readonly query: QueryOf<Id>;
  /** The path parameters. */
  readonly params: PathOf<Id>;
}

/** The handler of OpenAPI operation `Id`: parse, call a domain function, shape the answer. */
export interface OperationHandler<Id extends OperationId> {
  readonly operationId: Id;
  /** The services it is given (the router hands it these and no other). */
  readonly uses: readonly (keyof FacadeDeps)[];
  readonly run: (ctx: HandlerContext<Id, Partial<FacadeDeps>>) => Promise<void>;
}

/**
 * Declares the handler of operation `operationId` and the services it uses: its `deps` hold those
 * and nothing else, so what a handler depends on reads from its first line, and the compiler
 * refuses a service it did not declare.
 */
export function handler<Id extends OperationId, const K extends keyof FacadeDeps>(
  operationId: Id,
  uses: readonly K[],
  run: (ctx: HandlerContext<Id, Pick<FacadeDeps, K>>) => Promise<void>,
): OperationHandler<Id> {
  return { operationId, uses, run: run as OperationHandler<Id>['run'] };
}

/** The services of `deps` that `uses` names (what the router gives a handler). */
export function servicesFor(deps: FacadeDeps, uses: readonly (keyof FacadeDeps)[]): Partial<FacadeDeps> {
  return Object.fromEntries(uses.map((k) => [k, deps[k]])) as Partial<FacadeDeps>;
}
