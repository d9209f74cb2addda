// The OpenAPI 3.1 document, generated from the route table and the valibot schemas that validate requests.
import * as v from 'valibot';
import { toJsonSchema, type ConversionConfig } from '@valibot/to-json-schema';
import { jsonNumberSchema } from '../core/schemas.js';
import type { Route } from './route.js';
import { routeParamNames } from './route.js';

const conversion: ConversionConfig = {
  target: 'draft-2020-12',
  typeMode: 'input',
  errorMode: 'ignore',
  // Exact numbers are a class of ours; on the wire they are plain JSON numbers.
  overrideSchema: ({ valibotSchema }) => (valibotSchema === jsonNumberSchema ? { type: 'number' } : undefined),
};

const schemaOf = (schema: v.GenericSchema) => {
  const { $schema: _, ...rest } = toJsonSchema(schema, conversion) as Record<string, unknown>;
  return rest;
};

const errorBody = {
  type: 'object',
  required: ['message', 'code'],
  properties: {
    message: { type: 'string' },
    code: { type: 'string' },
    details: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } } },
  },
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
      parameters.push({ name, in: 'query', required: !optional && !name.match(/^(limit|cursor)$/), schema: schemaOf(schema) });
    }
  }
  for (const [name, header] of Object.entries(route.headers ?? {})) {
    parameters.push({ name, in: 'header', required: header.required, description: header.description, schema: schemaOf(header.schema) });
  }
  // Every route with a body refuses one declared as anything but JSON (server/route.ts, parseBody).
  const declared = route.body ? { 415: 'The body is declared as something other than JSON', ...route.responses } : route.responses;
  const responses = Object.fromEntries(
    Object.entries(declared).map(([status, description]) => [
      status,
      Number(status) >= 400
        ? { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } }
        : { description },
    ]),
  );
  return {
    summary: route.summary,
    operationId: `${route.method.toLowerCase()}${route.path.replace(/\/api\/v1/, '').replace(/[/:-](\w)/g, (_, c: string) => c.toUpperCase())}`,
    ...(route.scope ? { security: [{ bearer: [] }], 'x-required-scope': route.scope } : { security: [] }),
    ...(parameters.length ? { parameters } : {}),
    ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: schemaOf(route.body) } } } } : {}),
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
      schemas: { Error: errorBody },
    },
    paths,
  };
}
