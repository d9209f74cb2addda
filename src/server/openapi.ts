// The OpenAPI 3.1 document, generated from the route table, the valibot schemas that validate requests, and the
// valibot schemas of the answers (core/responses.ts), which are also the views' types.
import * as v from 'valibot';
import { toJsonSchema, toJsonSchemaDefs, type ConversionConfig, type JsonSchema } from '@valibot/to-json-schema';
import { limitSchema } from '../core/schemas.js';
import { responseSchemas } from '../core/responses.js';
import { JsonNumber } from '../core/json.js';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, PAGE_SIZE_MIN } from '../core/limits.js';
import type { ResponseSpec, Route } from './route.js';
import { ANY_KEY, routeParamNames } from './route.js';
import { OPERATION_EXAMPLES } from './examples.js';

/** Exact numbers are a class of ours (JsonNumber); on the wire they are plain JSON numbers. */
const override = (schema: v.GenericSchema): JsonSchema | undefined =>
  schema.type === 'instance' && (schema as v.InstanceSchema<typeof JsonNumber, undefined>).class === JsonNumber ? { type: 'number' } : undefined;

/** Queries arrive as text, but `limit` is an integer to every client. */
const LIMIT_PARAMETER = { type: 'integer', minimum: PAGE_SIZE_MIN, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT };

const conversion: ConversionConfig = {
  target: 'draft-2020-12',
  typeMode: 'input',
  errorMode: 'ignore',
  overrideSchema: ({ valibotSchema }) => override(valibotSchema),
};

/** The answers' schemas, each named once in `components/schemas` and referred to by name wherever it appears. */
const components = toJsonSchemaDefs(responseSchemas, {
  target: 'draft-2020-12',
  typeMode: 'output',
  errorMode: 'ignore',
  overrideSchema: ({ valibotSchema }) => override(valibotSchema),
  overrideRef: ({ referenceId }) => `#/components/schemas/${referenceId}`,
});

const schemaOf = (schema: v.GenericSchema) => {
  const { $schema: _, ...rest } = toJsonSchema(schema, conversion) as Record<string, unknown>;
  return rest;
};

function operation(route: Route) {
  const parameters: unknown[] = routeParamNames(route.path).map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string', format: 'uuid' },
  }));
  if (route.query && 'entries' in route.query) {
    const entries = (route.query as unknown as v.ObjectSchema<v.ObjectEntries, undefined>).entries;
    for (const [name, schema] of Object.entries(entries)) {
      const optional = schema.type === 'optional';
      const inner = optional ? (schema as v.OptionalSchema<v.GenericSchema, undefined>).wrapped : schema;
      // A map written `name[key]=value`: a deepObject, which generated clients know how to send.
      const deepObject = route.queryMaps?.includes(name) ? { style: 'deepObject', explode: true } : {};
      parameters.push({ name, in: 'query', required: !optional, ...deepObject, schema: inner === limitSchema ? LIMIT_PARAMETER : schemaOf(schema) });
    }
  }
  for (const [name, header] of Object.entries(route.headers ?? {})) {
    parameters.push({ name, in: 'header', required: header.required, description: header.description, schema: schemaOf(header.schema) });
  }
  // Every route with a body refuses one declared as anything but JSON (server/route.ts, readRouteBody).
  // A route that needs a key answers 401 without a live one, and 403 when the key lacks the route's scope (ANY_KEY:
  // none); a route may say more of either.
  const auth = route.scope ? { 401: 'Unauthenticated', ...(route.scope === ANY_KEY ? {} : { 403: 'Forbidden' }) } : {};
  const declared: Record<string, string | ResponseSpec> = { ...auth, ...(route.body || route.fileBody ? { 415: route.fileBody ? 'The body is of a media type the route does not take' : 'The body is declared as something other than JSON' } : {}), ...route.responses };
  // Any other error (429, 503, 413, 408, 405…) has the same body.
  declared.default = { description: 'An error: every error has this body', schema: 'Error' };
  const example = OPERATION_EXAMPLES[route.operationId];
  const responses = Object.fromEntries(
    Object.entries(declared).map(([status, spec]) => {
      const { description, schema, contentType } = typeof spec === 'string' ? { description: spec, schema: Number(status) >= 400 ? 'Error' : undefined, contentType: undefined } : spec;
      if (!schema) return [status, contentType ? { description, content: { [contentType]: { schema: { type: 'string' } } } } : { description }];
      const shown = example?.response?.status === Number(status) ? { example: example.response.body } : {};
      return [status, { description, content: { [contentType ?? 'application/json']: { schema: { $ref: `#/components/schemas/${schema}` }, ...shown } } }];
    }),
  );
  return {
    summary: route.summary,
    operationId: route.operationId,
    ...(route.scope ? { security: [{ bearer: [] }], 'x-required-scope': route.scope } : { security: [] }),
    ...(parameters.length ? { parameters } : {}),
    ...(route.body
      ? { requestBody: { required: !route.bodyOptional, content: { 'application/json': { schema: schemaOf(route.body), ...(example?.request ? { example: example.request } : {}) } } } }
      : {}),
    ...(route.fileBody
      ? {
          requestBody: {
            required: true,
            description: route.fileBody.description,
            content: Object.fromEntries(Object.keys(route.fileBody.types).map((type) => [type, { schema: { type: 'string', maxLength: route.fileBody!.maxBytes } }])),
          },
        }
      : {}),
    responses,
  };
}

export const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

export function openApiDocument(routes: Route[], version: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const item = (paths[openApiPath(route.path)] ??= {});
    item[route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'ledger', version, description: 'Multi-tenant double-entry ledger for bank rails and stablecoins.' },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'sk_live_ followed by 32 hex characters' } },
      schemas: components,
    },
    paths,
  };
}
