// Every JSON answer the tests receive is held to the OpenAPI document (issue 16): a setup file of both vitest
// projects wraps fetch, finds the document's operation for each request to a ledger server (by method and path), and
// validates the answer's body against the schema the document gives for its status (or its `default`, the error
// body). An answer that does not match fails the request, so the test that made it fails, naming the route, the
// status and the field. A 2xx JSON answer the document gives no schema is a failure too, and so is a JSON answer
// under /api/ on a path the document does not have, unless it is an error with the error body (an unknown path's 404).
//
// The document and its validators are built on the first request to a local server, not when the file is loaded:
// a file that never asks a server (the unit tests) never pays for them.
import type { ValidateFunction } from 'ajv';

interface Operation {
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
}

interface Judge {
  /**
   * Each documented path as a pattern, most specific first: fewer parameters first (so /transactions/batch wins over
   * /transactions/{id}), then longest.
   */
  templates: Array<{ template: string; pattern: RegExp }>;
  validatorFor(template: string, method: string, status: number, mediaType: string): { validate?: ValidateFunction; documented: boolean };
  /** The error body's schema: what an error on a path the document does not have must still be. */
  errorBody: ValidateFunction;
}

const params = (template: string) => template.split('{').length - 1;

async function buildJudge(): Promise<Judge> {
  const [{ Ajv2020 }, { allRoutes }, { openApiDocument }, { isUuid }] = await Promise.all([
    import('ajv/dist/2020.js'),
    import('../../src/server/app.js'),
    import('../../src/server/openapi.js'),
    import('../../src/core/ids.js'),
  ]);
  const document = openApiDocument(allRoutes, 'test') as unknown as {
    paths: Record<string, Record<string, Operation>>;
    components: { schemas: Record<string, unknown> };
  };

  const ajv = new Ajv2020({ allErrors: false, strict: false });
  ajv.addFormat('uuid', { validate: isUuid });
  ajv.addFormat('date-time', { validate: (s: string) => !Number.isNaN(Date.parse(s)) && /^\d{4}-\d{2}-\d{2}T/.test(s) });
  ajv.addSchema({ $id: 'doc', components: document.components }, 'doc');

  const validators = new Map<string, ValidateFunction>();
  const compiled = (ref: string) => {
    const validate = validators.get(ref) ?? ajv.compile({ $ref: `doc${ref}` });
    validators.set(ref, validate);
    return validate;
  };

  return {
    templates: Object.keys(document.paths)
      .map((template) => ({ template, pattern: new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}/?$`) }))
      .sort((a, b) => params(a.template) - params(b.template) || b.template.length - a.template.length),
    validatorFor(template, method, status, mediaType) {
      const operation = document.paths[template]?.[method];
      if (!operation) return { documented: false };
      // `default` is the error body: it answers for errors the operation does not list (429, 503, 413…), never for a 2xx.
      const response = operation.responses[String(status)] ?? (status >= 400 ? operation.responses.default : undefined);
      const schema = response?.content?.[mediaType]?.schema as { $ref?: string } | undefined;
      if (!schema?.$ref) return { documented: Boolean(response?.content) };
      return { validate: compiled(schema.$ref), documented: true };
    },
    errorBody: compiled('#/components/schemas/Error'),
  };
}

let judge: Promise<Judge> | undefined;

const LOCAL = new Set(['127.0.0.1', 'localhost', '[::1]']);
const realFetch = globalThis.fetch;

/** The answer's JSON values (one per line for NDJSON), or nothing when it is not JSON or was not read whole. */
async function jsonValues(response: Response, lines: boolean): Promise<unknown[] | undefined> {
  try {
    const text = await response.clone().text();
    if (text === '') return undefined;
    return lines ? text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line)) : [JSON.parse(text)];
  } catch {
    return undefined; // Not read whole (aborted) or not JSON at all: other assertions judge it.
  }
}

function failOnMismatch(route: string, status: number, validate: ValidateFunction, values: unknown[], lines: boolean, what = 'the OpenAPI document'): void {
  for (const [n, value] of values.entries()) {
    if (validate(value)) continue;
    const [first] = validate.errors ?? [];
    const field = `${lines ? `line ${n + 1} ` : ''}${first?.instancePath || '(the body)'}`;
    throw new Error(`${route} answered ${status} with a body that does not match ${what}: ${field} ${first?.message ?? ''} ${JSON.stringify(first?.params ?? {})}`);
  }
}

globalThis.fetch = async function fetchHeldToTheDocument(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await realFetch(input, init);
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (!LOCAL.has(url.hostname)) return response;
  const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toLowerCase();
  const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
  // NDJSON (the audit export): each line is one value of the schema.
  const lines = mediaType === 'application/x-ndjson';
  if (method === 'head' || (mediaType !== 'application/json' && !lines)) return response;
  const { templates, validatorFor, errorBody } = await (judge ??= buildJudge());
  const match = templates.find((t) => t.pattern.test(url.pathname));
  if (!match) {
    // Another local server (a webhook receiver, a chain node) answers elsewhere than /api/.
    if (!url.pathname.startsWith('/api/')) return response;
    const route = `${method.toUpperCase()} ${url.pathname}`;
    if (response.status < 400) throw new Error(`${route} answered ${response.status} with ${mediaType} on a path the OpenAPI document does not have.`);
    const values = await jsonValues(response, lines);
    if (values) failOnMismatch(route, response.status, errorBody, values, lines, 'the error body');
    return response;
  }
  const values = await jsonValues(response, lines);
  if (!values) return response;
  const route = `${method.toUpperCase()} ${match.template}`;
  const { validate, documented } = validatorFor(match.template, method, response.status, mediaType);
  if (!validate) {
    if (response.status < 300 && !documented) throw new Error(`${route} answered ${response.status} with ${mediaType} the OpenAPI document gives no schema for.`);
    return response;
  }
  failOnMismatch(route, response.status, validate, values, lines);
  return response;
} as typeof fetch;
