// Every JSON answer the tests receive is held to the OpenAPI document (issue 16): a setup file of both vitest
// projects wraps fetch, finds the document's operation for each request to a ledger server (by method and path), and
// validates the answer's body against the schema the document gives for its status (or its `default`, the error
// body). An answer that does not match fails the request, so the test that made it fails, naming the route, the
// status and the field. A 2xx JSON answer the document gives no schema is a failure too.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { allRoutes } from '../../src/server/app.js';
import { openApiDocument } from '../../src/server/openapi.js';
import { isUuid } from '../../src/core/ids.js';

interface Operation {
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
}

const document = openApiDocument(allRoutes, 'test') as unknown as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
};

const ajv = new Ajv2020({ allErrors: false, strict: false });
ajv.addFormat('uuid', { validate: isUuid });
ajv.addFormat('date-time', { validate: (s: string) => !Number.isNaN(Date.parse(s)) && /^\d{4}-\d{2}-\d{2}T/.test(s) });
ajv.addSchema({ $id: 'doc', components: document.components }, 'doc');

/** Each documented path as a pattern, most specific (longest) first so /transactions/{id} wins over a shorter one. */
const templates = Object.keys(document.paths)
  .map((template) => ({ template, pattern: new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}/?$`) }))
  .sort((a, b) => b.template.length - a.template.length);

const validators = new Map<string, ValidateFunction>();
function validatorFor(template: string, method: string, status: number, mediaType: string): { validate?: ValidateFunction; documented: boolean } {
  const operation = document.paths[template]?.[method];
  if (!operation) return { documented: false };
  // `default` is the error body: it answers for errors the operation does not list (429, 503, 413…), never for a 2xx.
  const response = operation.responses[String(status)] ?? (status >= 400 ? operation.responses.default : undefined);
  const schema = response?.content?.[mediaType]?.schema as { $ref?: string } | undefined;
  if (!schema?.$ref) return { documented: Boolean(response?.content) };
  const key = schema.$ref;
  const validate = validators.get(key) ?? ajv.compile({ $ref: `doc${key}` });
  validators.set(key, validate);
  return { validate, documented: true };
}

const LOCAL = new Set(['127.0.0.1', 'localhost', '[::1]']);
const realFetch = globalThis.fetch;

globalThis.fetch = async function fetchHeldToTheDocument(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await realFetch(input, init);
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (!LOCAL.has(url.hostname)) return response;
  const match = templates.find((t) => t.pattern.test(url.pathname));
  if (!match) return response;
  const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toLowerCase();
  const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
  // NDJSON (the audit export): each line is one value of the schema.
  const lines = mediaType === 'application/x-ndjson';
  if (method === 'head' || (mediaType !== 'application/json' && !lines)) return response;
  let values: unknown[];
  try {
    const text = await response.clone().text();
    if (text === '') return response;
    values = lines ? text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line)) : [JSON.parse(text)];
  } catch {
    return response; // Not read whole (aborted) or not JSON at all: other assertions judge it.
  }
  const route = `${method.toUpperCase()} ${match.template}`;
  const { validate, documented } = validatorFor(match.template, method, response.status, mediaType);
  if (!validate) {
    if (response.status < 300 && !documented) throw new Error(`${route} answered ${response.status} with ${mediaType} the OpenAPI document gives no schema for.`);
    return response;
  }
  for (const [n, value] of values.entries()) {
    if (validate(value)) continue;
    const [first] = validate.errors ?? [];
    const field = `${lines ? `line ${n + 1} ` : ''}${first?.instancePath || '(the body)'}`;
    throw new Error(`${route} answered ${response.status} with a body that does not match the OpenAPI document: ${field} ${first?.message ?? ''} ${JSON.stringify(first?.params ?? {})}`);
  }
  return response;
} as typeof fetch;

