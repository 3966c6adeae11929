/**
 * The shapes of the API, from its contract: `npm run codegen` generates src/generated/openapi.d.ts
 * from facade/openapi/openapi.yaml with openapi-typescript (the facade's types come from the same
 * run). The pages name a shape by its schema, `type Voice = Schema<'Voice'>`, and never copy one
 * by hand, so a change of the document shows up here as a type error.
 */
import type { components } from '../generated/openapi.js';

/** A schema of the OpenAPI document, e.g. `Schema<'Voice'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

