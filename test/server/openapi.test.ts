// The OpenAPI document is valid OpenAPI 3.1 and describes every route the server has.
import { beforeAll, describe, expect, it } from 'vitest';
import { validate } from '@readme/openapi-parser';
import { allRoutes } from '../../src/server/app.js';
import { openApiPath } from '../../src/server/openapi.js';
import { useServerWithAccounts } from '../helpers/server.js';

describe('GET /api/v1/openapi.json', () => {
  let doc: { openapi: string; paths: Record<string, Record<string, { requestBody?: unknown }>> };

  const t = useServerWithAccounts();
  beforeAll(async () => {
    const res = await fetch(`${t.url}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    doc = (await res.json()) as typeof doc;
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid, JSON.stringify(result)).toBe(true);
  });

  it('has an operation for every route of the server, with request bodies where the route reads one', () => {
    for (const route of allRoutes) {
      const operation = doc.paths[openApiPath(route.path)]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      expect(Boolean(operation!.requestBody), `${route.method} ${route.path} body`).toBe(Boolean(route.body || route.fileBody));
    }
  });
});
