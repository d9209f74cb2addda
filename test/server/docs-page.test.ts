// `GET /api/v1/docs` (issue 16) in a real headless browser: Debian's chromium driven by playwright-core. The page
// renders every operation of the document and its schemas, fetches nothing but itself, and throws and logs no error
// (test/helpers/browser.ts). Without chromium the test is skipped, saying how to enable it; under CI (CI=true) it fails
// instead.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { CHROMIUM, CHROMIUM_ARGS, describeInBrowser, watch } from '../helpers/browser.js';

describeInBrowser('the API reference page in a headless browser', () => {
  let t: TestServer;
  let profile: string;
  beforeAll(async () => {
    t = await startTestServer();
    profile = mkdtempSync(join(tmpdir(), 'ledger-chromium-'));
  });
  afterAll(async () => {
    await t?.stop();
    rmSync(profile, { recursive: true, force: true });
  });

  it('renders every operation and schema, and fetches nothing but the page', async () => {
    const { chromium } = await import('playwright-core');
    const document = (await (await fetch(`${t.url}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string }>>;
      components: { schemas: Record<string, unknown> };
    };
    const operationIds = Object.values(document.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
    // A new empty profile of its own.
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      args: CHROMIUM_ARGS,
    });
    try {
      const page = browser.pages()[0] ?? (await browser.newPage());
      watch(page, { within: `${t.url}/api/v1/docs` });
      const response = await page.goto(`${t.url}/api/v1/docs`);
      expect(response?.status()).toBe(200);
      expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
      expect(await page.title()).toMatch(/^ledger API /);
      const rendered = await page.locator('section.operation').evaluateAll((sections) => sections.map((s) => s.id));
      expect(rendered.sort()).toEqual([...operationIds].sort());
      expect(await page.locator('section.schema').count()).toBe(Object.keys(document.components.schemas).length);
      // An operation reads as a person expects: method, path, scope, the response's schema linked.
      const create = page.locator('section#createAccount');
      await expect(create.locator('h3').innerText()).resolves.toMatch(/POST\s+\/api\/v1\/accounts\s+ACCOUNTS_WRITE/);
      await create.locator('a[href="#schema-Account"]').first().click();
      expect(page.url()).toMatch(/#schema-Account$/);
      expect(await page.locator('section#schema-Account td code', { hasText: 'normalBalance' }).count()).toBe(1);
    } finally {
      await browser.close();
    }
  });
});
