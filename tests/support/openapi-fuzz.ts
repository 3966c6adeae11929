/**
 * fast-check arbitraries derived from the OpenAPI document: values that satisfy a schema, values
 * that break it (wrong types, missing and unknown fields, hostile strings), and raw HTTP requests
 * built from them (odd percent-encodings, duplicate parameters, wrong content types), sent with
 * node:http so nothing normalises the path or merges repeated headers on the way.
 */
import { request } from 'node:http';
import fc, { type Arbitrary } from 'fast-check';

/** A JSON Schema node of the document (after $ref resolution). */
export type Schema = Readonly<Record<string, unknown>>;

/** One documented parameter. */
export interface DocumentedParameter {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header' | 'cookie';
  readonly required: boolean;
  readonly schema: Schema;
}

/** What the fuzzer needs of one operation. */
export interface FuzzOperation {
  readonly operationId: string;
  readonly method: string;
  readonly path: string;
  readonly parameters: readonly DocumentedParameter[];
  /** Request body schema per media type (empty: no body). */
  readonly bodies: Readonly<Record<string, Schema>>;
  /** Documented response status codes ('default' included when documented). */
  readonly responses: ReadonlySet<string>;
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
/** Longest "valid" string generated where the schema sets no maximum (keeps syntheses short). */
const VALID_STRING_CAP = 48;

/** Resolves local `$ref`s (one level at a time, as often as needed). */
export function deref(doc: Schema, node: unknown): Schema {
  let n = node as Schema;
  for (let i = 0; i < 16 && n && typeof n['$ref'] === 'string'; i++) {
    const parts = (n['$ref'] as string).replace(/^#\//, '').split('/');
    let cur: unknown = doc;
    for (const p of parts) cur = (cur as Record<string, unknown>)[p.replace(/~1/g, '/').replace(/~0/g, '~')];
    // A sibling description next to $ref does not change the schema.
    n = cur as Schema;
  }
  return n ?? {};
}

/** The operations of the document, parameters and bodies resolved. */
export function fuzzOperationsOf(doc: Schema): FuzzOperation[] {
  const out: FuzzOperation[] = [];
  for (const [path, item] of Object.entries(doc['paths'] as Record<string, Record<string, Schema>>)) {
    for (const [method, op] of Object.entries(item)) {
      if (typeof op !== 'object' || typeof op['operationId'] !== 'string') continue;
      const parameters = ((op['parameters'] ?? []) as unknown[]).map((p) => {
        const r = deref(doc, p);
        return { name: r['name'] as string, in: r['in'] as DocumentedParameter['in'], required: r['required'] === true, schema: deref(doc, r['schema']) };
      });
      const bodies: Record<string, Schema> = {};
      const rb = op['requestBody'] ? deref(doc, op['requestBody']) : undefined;
      for (const [media, c] of Object.entries((rb?.['content'] ?? {}) as Record<string, Schema>)) bodies[media] = deref(doc, c['schema']);
      out.push({ operationId: op['operationId'], method: method.toUpperCase(), path, parameters, bodies, responses: new Set(Object.keys(op['responses'] as object)) });
    }
  }
  return out;
}

/** Strings that broke parsers somewhere: encodings, separators, control characters, lone surrogates, injection shapes. */
export const HOSTILE_STRINGS: readonly string[] = [
  '', ' ', '\u0000', '\u0000abc', '\t\r\n', '%', '%00', '%zz', '%u0041', '%2F..%2F', '../../../../etc/passwd', '..\\..\\windows',
  '\uFEFF', '\u202Etxt.exe', '\u200B', 'ǅ̈̈̈̈', '𝕳𝖊𝖑𝖑𝖔', '👩‍👩‍👧‍👦', '\uD800', '\uDFFF\uD800', 'ﷺ', 'İ', '\u0085',
  "' OR '1'='1' --", '"; DROP TABLE jobs; --', '${jndi:ldap://x}', '{{7*7}}', '<script>alert(1)</script>', '__proto__', 'constructor',
  'null', 'undefined', 'NaN', 'Infinity', '-0', '1e309', '0x7fffffff', '9007199254740993', '-2147483649', 'true', '[]', '{}',
  'a'.repeat(70_000), '😀'.repeat(10_000), 'é'.repeat(4_097), '\\u0000', 'flite:slt', 'flite:', ':', 'wav', 'tts-1',
];

/** A hostile string: from the list, random code points, or graphemes. */
export const hostileString: Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 64 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 200, maxLength: 2_000 }) },
);

/** Numbers a client may send, int32's edges and beyond among them. */
const hostileNumber: Arbitrary<number> = fc.oneof(
  fc.constantFrom(0, -1, 1.5, -0.000001, 1e-300, INT32_MAX, INT32_MIN, INT32_MAX + 1, INT32_MIN - 1, 2 ** 53 + 2, 1e300, 65_536, 100_001),
  fc.integer({ min: INT32_MIN, max: INT32_MAX }),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }),
);

/** Any JSON value of a wrong kind, or a hostile one. */
export const hostileValue: Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: hostileString },
  { weight: 2, arbitrary: hostileNumber },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}, [null], { '': '' }, { __proto__: { admin: true } }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

function typesOf(s: Schema): string[] {
  const t = s['type'];
  return Array.isArray(t) ? (t as string[]) : typeof t === 'string' ? [t] : [];
}

function stringArb(s: Schema): Arbitrary<string> {
  const min = typeof s['minLength'] === 'number' ? s['minLength'] : 0;
  const max = typeof s['maxLength'] === 'number' ? Math.min(s['maxLength'], Math.max(min, VALID_STRING_CAP)) : Math.max(min, VALID_STRING_CAP);
  if (typeof s['pattern'] === 'string') {
    const re = new RegExp(s['pattern']);
    return fc.stringMatching(re, { maxLength: max }).filter((v) => v.length >= min && v.length <= max && re.test(v));
  }
  switch (s['format']) {
    case 'date':
      return fc.date({ min: new Date('2020-01-01'), max: new Date('2030-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
    case 'date-time':
      return fc.date({ min: new Date('2020-01-01'), max: new Date('2030-12-31'), noInvalidDate: true }).map((d) => d.toISOString());
    case 'uri':
      return fc.webUrl();
    default:
      return fc.string({ unit: fc.oneof(fc.constantFrom('a', 'b', ' ', '.', '1'), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 })), minLength: min, maxLength: max });
  }
}

/** Values that satisfy `schema` (bounded in size and depth). */
export function validArb(doc: Schema, node: unknown, depth = 0): Arbitrary<unknown> {
  const s = deref(doc, node);
  if ('const' in s) return fc.constant(s['const']);
  if (Array.isArray(s['enum'])) return fc.constantFrom(...(s['enum'] as unknown[]));
  for (const k of ['oneOf', 'anyOf'] as const) {
    if (Array.isArray(s[k])) return fc.oneof(...(s[k] as unknown[]).map((b) => validArb(doc, b, depth + 1)));
  }
  if (Array.isArray(s['allOf'])) {
    const parts = (s['allOf'] as unknown[]).map((b) => deref(doc, b));
    const merged: Record<string, unknown> = { type: 'object', properties: {}, required: [] };
    for (const p of parts) {
      Object.assign(merged['properties'] as object, p['properties'] ?? {});
      (merged['required'] as unknown[]).push(...((p['required'] as unknown[]) ?? []));
    }
    return validArb(doc, merged, depth + 1);
  }
  const types = typesOf(s);
  if (types.length > 1) return fc.oneof(...types.map((t) => validArb(doc, { ...s, type: t }, depth)));
  switch (types[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: Math.max(INT32_MIN, Math.ceil(num(s['minimum'], INT32_MIN))), max: Math.min(INT32_MAX, Math.floor(num(s['maximum'], INT32_MAX))) });
    case 'number':
      return fc.double({ min: num(s['minimum'], -1e6), max: num(s['maximum'], 1e6), noNaN: true, noDefaultInfinity: true });
    case 'string':
      return stringArb(s);
    case 'array': {
      if (depth > 4) return fc.constant([]);
      const minItems = num(s['minItems'], 0);
      return fc.array(validArb(doc, s['items'] ?? {}, depth + 1), { minLength: minItems, maxLength: Math.max(minItems, Math.min(num(s['maxItems'], 4), 4)) });
    }
    case 'object':
    case undefined: {
      const props = (s['properties'] ?? {}) as Record<string, unknown>;
      if (Object.keys(props).length === 0) return types[0] === 'object' ? fc.constant({}) : fc.jsonValue({ maxDepth: 2 });
      if (depth > 4) return fc.constant({});
      const required = ((s['required'] ?? []) as string[]).filter((k) => k in props);
      const model = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, validArb(doc, v, depth + 1)]));
      return fc.record(model, { requiredKeys: required });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function num(v: unknown, fallback: number): number {
  return typeof v === 'number' ? v : fallback;
}

/** Values that break `schema` somewhere (or, now and then, satisfy it by chance): the fuzzer's "invalid" side. */
export function mutantArb(doc: Schema, node: unknown): Arbitrary<unknown> {
  const s = deref(doc, node);
  const props = (s['properties'] ?? {}) as Record<string, unknown>;
  const keys = Object.keys(props);
  const valid = validArb(doc, s);
  const variants: Arbitrary<unknown>[] = [hostileValue];
  if (keys.length > 0) {
    // One field replaced by a wrong or hostile value.
    variants.push(fc.tuple(valid, fc.constantFrom(...keys), hostileValue).map(([v, k, bad]) => ({ ...(v as object), [k]: bad })));
    // A required field dropped, an unknown one added.
    variants.push(fc.tuple(valid, fc.constantFrom(...keys)).map(([v, k]) => Object.fromEntries(Object.entries(v as object).filter(([n]) => n !== k))));
    variants.push(fc.tuple(valid, hostileString, hostileValue).map(([v, k, bad]) => ({ ...(v as object), [k.slice(0, 64) || 'x']: bad })));
    // A string field at its maximum length plus one, or far over it.
    const stringKeys = keys.filter((k) => typesOf(deref(doc, props[k])).includes('string'));
    if (stringKeys.length > 0) {
      variants.push(fc.tuple(valid, fc.constantFrom(...stringKeys), fc.constantFrom(1, 1_000, 200_000)).map(([v, k, extra]) => {
        const max = num(deref(doc, props[k])['maxLength'], 10_000);
        return { ...(v as object), [k]: 'ä'.repeat(Math.min(max + extra, 300_000)) };
      }));
    }
  }
  return fc.oneof(...variants);
}

/** How a path or query value is written into the URL. */
export const encodingArb = fc.constantFrom('component', 'raw-odd', 'double', 'plus') as Arbitrary<'component' | 'raw-odd' | 'double' | 'plus'>;

/** Percent-encodes `value` the standard way or oddly (a stray %, invalid UTF-8, overlong forms, double encoding). */
export function encodeValue(value: string, how: 'component' | 'raw-odd' | 'double' | 'plus'): string {
  const standard = encodeURIComponent(value.replace(/[\uD800-\uDFFF]/g, '\uFFFD'));
  switch (how) {
    case 'component':
      return standard;
    case 'double':
      return encodeURIComponent(standard);
    case 'plus':
      return standard.replace(/%20/g, '+');
    case 'raw-odd':
      return `${standard}${['%', '%z', '%ff', '%C0%AF', '%ED%A0%80', '%00', '%2e%2e%2f', '%E2%82'][standard.length % 8]}`;
  }
}

/** The documented value of a parameter written as a string. */
export function paramString(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v) ?? '';
}

/** A raw HTTP request. */
export interface RawRequest {
  readonly method: string;
  readonly path: string;
  /** Header values; an array sends the header once per element (duplicates). */
  readonly headers: Readonly<Record<string, string | string[]>>;
  readonly body?: Buffer;
}

/** A raw answer. */
export interface RawResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer;
}

/** Sends `req` to `base` (http://host:port) as written: no path normalisation, duplicate headers kept. */
export function sendRaw(base: string, req: RawRequest, timeoutMs = 30_000): Promise<RawResponse> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const r = request({ host: url.hostname, port: url.port, method: req.method, path: req.path, headers: { ...req.headers, ...(req.body ? { 'content-length': String(req.body.length) } : {}) }, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    r.on('timeout', () => r.destroy(new Error(`timeout after ${timeoutMs} ms: ${req.method} ${req.path.slice(0, 200)}`)));
    r.on('error', reject);
    r.end(req.body);
  });
}

/** A multipart/form-data body from fields and files. */
export function multipartBody(fields: readonly [string, string][], files: readonly [string, string, Buffer][], boundary = `----fuzz${Math.random().toString(16).slice(2)}`): { body: Buffer; contentType: string } {
  const parts: Buffer[] = [];
  for (const [name, value] of fields) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name.replace(/["\r\n]/g, '_')}"\r\n\r\n${value}\r\n`));
  for (const [name, filename, data] of files) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name.replace(/["\r\n]/g, '_')}"; filename="${filename.replace(/["\r\n]/g, '_')}"\r\nContent-Type: application/octet-stream\r\n\r\n`), data, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}
