// The console's Reconciliation section in a real headless browser (Debian's chromium, driven by playwright-core), on a
// real server of this project's engine: an ASSET account's statements with their difference, a statement imported
// from its file (a broken one refused with the API's message, a CSV sent as text/csv), a statement's lines filtered by
// status, a line matched by hand through the Match… dialog to two entries whose sum the dialog adds up exactly, another
// ignored with a note, an automatic match unmatched and made again by "Reconcile again"; axe-core on the statement's
// page and with the dialog open. The test fails on a request that leaves the server's origin and on an error in the
// page, but the refusal it causes on purpose (test/helpers/browser.ts).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { formatAmount } from '../../src/console/amounts.js';
import { CHROMIUM, CHROMIUM_ARGS, describeInBrowser, watch } from '../helpers/browser.js';
import { client, fiat, makeAccount, post, startTestServer, type Client, type TestServer } from '../helpers/server.js';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const today = () => new Date().toISOString().slice(0, 10);

interface Ntry {
  amount: string;
  direction: 'CRDT' | 'DBIT';
  ref: string;
  endToEnd?: string;
}

/** A camt.053.001.02 file of one statement, booked today (test/server/bank-statements.test.ts). */
function camt(id: string, entries: Ntry[], closing: string): string {
  const ntry = entries
    .map(
      (e) => `<Ntry>
  <Amt Ccy="USD">${e.amount}</Amt><CdtDbtInd>${e.direction}</CdtDbtInd><Sts>BOOK</Sts>
  <BookgDt><Dt>${today()}</Dt></BookgDt><ValDt><Dt>${today()}</Dt></ValDt><AcctSvcrRef>${e.ref}</AcctSvcrRef>
  <NtryDtls><TxDtls><Refs>${e.endToEnd ? `<EndToEndId>${e.endToEnd}</EndToEndId>` : ''}</Refs>
  <RltdPties><Dbtr><Nm>Payer Ltd</Nm></Dbtr><DbtrAcct><Id><IBAN>DE89370400440532013000</IBAN></Id></DbtrAcct></RltdPties>
  <RmtInf><Ustrd>Invoice 42</Ustrd></RmtInf></TxDtls></NtryDtls>
</Ntry>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">
<BkToCstmrStmt><GrpHdr><MsgId>M1</MsgId><CreDtTm>${today()}T08:00:00Z</CreDtTm></GrpHdr>
<Stmt><Id>${id}</Id><ElctrncSeqNb>7</ElctrncSeqNb><CreDtTm>${today()}T08:00:00Z</CreDtTm>
<Acct><Id><IBAN>DE00</IBAN></Id><Ccy>USD</Ccy></Acct>
<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="USD">0</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>${today()}</Dt></Dt></Bal>
<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="USD">${closing}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>${today()}</Dt></Dt></Bal>
${ntry}
</Stmt></BkToCstmrStmt></Document>`;
}

const importFile = (c: Client, accountId: string, body: string, type = 'application/xml') =>
  c.request('POST', `/api/v1/accounts/${accountId}/bank-statements`, { rawBody: body, headers: { 'content-type': type } });

describeInBrowser('the console’s reconciliation', () => {
  let t: TestServer;
  let admin: Client;
  let browser: Browser;
  let bank: string;
  let statementId: string;
  let difference: string;

  beforeAll(async () => {
    t = await startTestServer();
    admin = client(t.url, t.tenant.apiKey.rawKey);
    bank = await makeAccount(admin, { name: 'Bank', type: 'ASSET' });
    const revenue = await makeAccount(admin, { name: 'Revenue', type: 'REVENUE' });
    // 125.50 by reference; 30 and 40, the 70 of a line that no rule matches; 7.77 the bank never shows; 15 paid out.
    const postings = [
      [fiat(bank, 'DEBIT', '125.50', 'USD', { bankReference: 'INV-1' }), fiat(revenue, 'CREDIT', '125.50')],
      [fiat(bank, 'DEBIT', '30.00'), fiat(revenue, 'CREDIT', '30.00')],
      [fiat(bank, 'DEBIT', '40.00'), fiat(revenue, 'CREDIT', '40.00')],
      [fiat(bank, 'DEBIT', '7.77'), fiat(revenue, 'CREDIT', '7.77')],
      [fiat(bank, 'CREDIT', '15.00'), fiat(revenue, 'DEBIT', '15.00')],
    ];
    for (const lines of postings) expect((await post(admin, lines)).status).toBe(201);
    const file = camt('STMT-REC-1', [
      { amount: '125.50', direction: 'CRDT', ref: 'B-1', endToEnd: 'INV-1' },
      { amount: '70.00', direction: 'CRDT', ref: 'B-2' },
      { amount: '2.50', direction: 'DBIT', ref: 'B-3' },
    ], '193.00');
    const imported = await importFile(admin, bank, file);
    expect(imported.status, imported.text).toBe(201);
    expect(imported.body.summary).toMatchObject({ matched: 1, unmatched: 2, ignored: 0 });
    statementId = imported.body.statementId;
    difference = String(imported.body.summary.difference);
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });

  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  /** Waits for the page to settle: its heading shown and no loading line left. */
  async function settled(page: Page, heading: string): Promise<void> {
    await expect.poll(() => page.locator('main h1').first().innerText()).toBe(heading);
    await expect.poll(() => page.locator('.loading').count(), { timeout: 15_000 }).toBe(0);
  }

  async function axe(page: Page, name: string): Promise<void> {
    // Evaluated through the DevTools protocol: the page's own policy lets no inline script in.
    await page.evaluate(AXE_SOURCE);
    const violations = (await page.evaluate(
      'axe.run().then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target) })))',
    )) as Array<{ id: string; impact: string; help: string; targets: unknown[] }>;
    expect(violations, name).toEqual([]);
  }

  it('lists the statements with their difference, imports a file, matches a line by hand to two entries, ignores one, unmatches and reconciles again', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      const w = watch(page, { within: `${t.url}/`, allow: [/status of 400/] });
      expect((await page.goto(`${t.url}/console`))?.status()).toBe(200);
      await page.getByLabel('API key').fill(t.tenant.apiKey.rawKey);
      await page.getByRole('button', { name: 'Sign in' }).click();

      // The section, its account picked: the statement, its difference prominent.
      w.step = 'the account’s statements';
      await page.getByRole('navigation').getByRole('link', { name: 'Reconciliation', exact: true }).click();
      await settled(page, 'Reconciliation');
      await page.getByRole('combobox', { name: 'Account' }).selectOption({ label: 'Bank (USD)' });
      const statements = page.getByRole('region', { name: 'Statements, newest import first' });
      const row = statements.locator('tbody tr', { hasText: 'STMT-REC-1' });
      await row.waitFor();
      await expect(row.locator('td strong').innerText()).resolves.toBe(`${formatAmount(difference, 'USD')} USD`);
      // What the books have and the bank never showed.
      const unreconciled = page.getByRole('region', { name: 'Unreconciled entries, oldest first' });
      await expect.poll(() => unreconciled.locator('td.num').allInnerTexts()).toEqual(['30.00 USD', '40.00 USD', '7.77 USD', '15.00 USD']);
      const period = page.getByRole('form', { name: "Unreconciled entries' period" });
      await period.getByLabel('From').fill(today());
      await period.getByLabel('To').fill(today());
      await period.getByRole('button', { name: 'Show' }).click();
      await expect.poll(() => unreconciled.locator('tbody tr').count()).toBe(4);

      // A broken file: the API's message; a CSV, sent as text/csv.
      w.step = 'imports';
      const input = page.getByLabel('Import statement (camt.053 .xml or .csv)');
      const broken = '<Document><broken></Document>';
      const refused = await importFile(admin, bank, broken);
      expect(refused.status).toBe(400);
      await input.setInputFiles({ name: 'broken.xml', mimeType: 'application/xml', buffer: Buffer.from(broken) });
      await page.getByRole('button', { name: 'Import', exact: true }).click();
      await expect(page.getByRole('alert').innerText()).resolves.toContain(`VALIDATION_FAILED (400): ${refused.body.message}`);
      await input.setInputFiles({ name: 'payouts.csv', mimeType: 'text/csv', buffer: Buffer.from(`bookingDate,amount,reference\n${today()},-15.00,PAY-1\n`) });
      const [sent] = await Promise.all([
        page.waitForRequest((r) => r.method() === 'POST' && r.url().includes('/bank-statements')),
        page.getByRole('button', { name: 'Import', exact: true }).click(),
      ]);
      expect(sent.headers()['content-type']).toBe('text/csv');
      await expect(page.locator('.outcome.ok').innerText()).resolves.toMatch(/^Imported: CSV [0-9a-f]{12}…, 1 line, 1 matched, 0 unmatched\.$/);
      await expect.poll(() => statements.locator('tbody tr').count()).toBe(2);

      // The statement's page.
      w.step = 'the statement';
      await row.getByRole('link', { name: 'STMT-REC-1' }).click();
      await settled(page, 'Bank statement');
      await expect(page.locator('#difference').innerText()).resolves.toContain(`Difference ${formatAmount(difference, 'USD')} USD`);
      const lines = page.getByRole('region', { name: "Lines, in the file's order" });
      await expect.poll(() => lines.locator('tbody tr').count()).toBe(3);
      await axe(page, 'statement');
      await page.getByLabel('Status').selectOption('UNMATCHED');
      await expect.poll(() => lines.locator('tbody tr').count()).toBe(2);

      // Match…: the candidates of the line's side, closest first; Match once the sum reaches the line's amount.
      w.step = 'the match dialog';
      const seventy = lines.locator('tbody tr', { hasText: '70.00 USD' });
      await seventy.getByRole('button', { name: 'Match…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Match line 2' });
      await dialog.waitFor();
      await expect.poll(() => page.evaluate('document.activeElement.id')).toBe('match-title');
      const candidates = dialog.getByRole('region', { name: 'Candidate DEBIT entries, closest first' });
      await expect.poll(() => candidates.locator('td.num').allInnerTexts()).toEqual(['40.00 USD', '30.00 USD', '7.77 USD']);
      await axe(page, 'match dialog');
      const match = dialog.getByRole('button', { name: 'Match', exact: true });
      const sums = () => dialog.locator('dl dd').allInnerTexts();
      await expect.poll(() => match.isDisabled()).toBe(true);
      await dialog.getByRole('checkbox', { name: /^Pick 40\.00 USD/ }).check();
      await expect.poll(sums).toEqual(['70.00 USD', '40.00 USD', '30.00 USD']);
      await expect.poll(() => match.isDisabled()).toBe(true);
      await dialog.getByRole('checkbox', { name: /^Pick 30\.00 USD/ }).check();
      await expect.poll(sums).toEqual(['70.00 USD', '70.00 USD', '0.00 USD']);
      await expect.poll(() => match.isEnabled()).toBe(true);
      await dialog.getByLabel('Note (optional)').fill('two invoices');
      const [matched] = await Promise.all([page.waitForRequest((r) => r.url().endsWith('/match')), match.click()]);
      expect(matched.headers()['idempotency-key']).toMatch(/^console-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      await dialog.waitFor({ state: 'hidden' });
      await page.getByText('Line 2 is matched to 2 entries.').waitFor();
      await expect.poll(() => lines.locator('tbody tr').count()).toBe(1);
      await page.getByLabel('Status').selectOption('MATCHED');
      const done = lines.locator('tbody tr', { hasText: '70.00 USD' });
      await expect.poll(() => done.locator('td').allInnerTexts()).toEqual(expect.arrayContaining(['MATCHED', 'by hand, 2 entries', 'two invoices']));

      // Ignore…: Escape closes the dialog, the focus back on its button; then the note, required.
      w.step = 'ignore';
      await page.getByLabel('Status').selectOption('UNMATCHED');
      const fee = lines.locator('tbody tr', { hasText: '2.50 USD' });
      await fee.getByRole('button', { name: 'Ignore…' }).click();
      const ignore = page.getByRole('dialog', { name: 'Ignore line 3' });
      await ignore.waitFor();
      await page.keyboard.press('Escape');
      await ignore.waitFor({ state: 'hidden' });
      await expect.poll(() => page.evaluate('document.activeElement.textContent')).toBe('Ignore…');
      await fee.getByRole('button', { name: 'Ignore…' }).click();
      await expect.poll(() => ignore.getByRole('button', { name: 'Ignore', exact: true }).isDisabled()).toBe(true);
      await ignore.getByLabel('Note (required)').fill('bank fee, booked later');
      await ignore.getByRole('button', { name: 'Ignore', exact: true }).click();
      await page.getByText('Line 3 is ignored.').waitFor();
      await page.getByLabel('Status').selectOption('IGNORED');
      await expect.poll(() => lines.locator('tbody tr', { hasText: '2.50 USD' }).innerText()).toContain('IGNORED');
      await expect(lines.locator('tbody tr', { hasText: '2.50 USD' }).innerText()).resolves.toContain('bank fee, booked later');

      // Unmatch the automatic match, then Reconcile again matches it back by its reference.
      w.step = 'unmatch and reconcile';
      await page.getByLabel('Status').selectOption('');
      await lines.locator('tbody tr', { hasText: '125.50 USD' }).getByRole('button', { name: 'Unmatch' }).click();
      await page.getByText('Line 1 is unmatched; its entries are free again.').waitFor();
      await expect.poll(() => lines.locator('tbody tr', { hasText: '125.50 USD' }).locator('td').nth(7).innerText()).toBe('UNMATCHED');
      await page.getByRole('button', { name: 'Reconcile again' }).click();
      await page.getByText('Reconciled again: 2 matched, 0 unmatched, 1 ignored.').waitFor();
      await expect.poll(() => lines.locator('tbody tr', { hasText: '125.50 USD' }).locator('td').nth(8).innerText()).toBe('REFERENCE, 1 entry');

      // What the API now says.
      const after = (await admin.get(`/api/v1/bank-statements/${statementId}/lines`)).body.items;
      expect(after.map((l: any) => [l.status, l.matchedBy, l.note])).toEqual([
        ['MATCHED', 'AUTO', null],
        ['MATCHED', 'MANUAL', 'two invoices'],
        ['IGNORED', null, 'bank fee, booked later'],
      ]);
      await axe(page, 'statement, worked');
    } finally {
      await context.close();
    }
  });
});
