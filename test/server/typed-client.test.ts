// A typed client, tried (issue 16): types are generated from the document a live server serves, with
// openapi-typescript; a small program using every resource through openapi-fetch must type-check against them
// (so no response comes out as `never`, and integer parameters take numbers); then it runs against that server.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { useServerWithAccounts } from '../helpers/server.js';
import { UUID } from '../helpers/expect.js';

const CLIENT_DIR = join(process.cwd(), 'test', 'server', 'typed-client');
const PROGRAM = join(CLIENT_DIR, 'program.ts');

describe('a client generated from the OpenAPI document', () => {
  const t = useServerWithAccounts({ webhooks: { allowPrivate: true } });
  beforeAll(async () => {
    const served = (await (await fetch(`${t.url}/api/v1/openapi.json`)).json()) as OpenAPI3;
    mkdirSync(join(CLIENT_DIR, 'generated'), { recursive: true });
    writeFileSync(join(CLIENT_DIR, 'generated', 'api.d.ts'), astToString(await openapiTS(served)));
  });

  it('type-checks: a program that reads every resource through openapi-fetch compiles against the generated types', () => {
    const program = ts.createProgram([PROGRAM], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      skipLibCheck: true,
      types: [],
    });
    const errors = ts.getPreEmitDiagnostics(program).map((d) => {
      const where = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
      return `${d.file ? `${d.file.fileName.replace(`${CLIENT_DIR}/`, '')}:${(where?.line ?? 0) + 1}` : ''} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
    expect(errors).toEqual([]);
  });

  it('runs against the live server and reads what it answers', async () => {
    // Imported by path: its types exist only once the test has generated them (tsconfig leaves test/server/typed-client out).
    const { run } = (await import(PROGRAM)) as { run: (baseUrl: string, rawKey: string) => Promise<Record<string, any>> };
    const r = await run(t.url, t.tenant.apiKey.rawKey);
    expect(r.health).toBe('ok');
    expect(r.accountIds).toHaveLength(2);
    expect(r.accountName).toBe('cash');
    expect(r.normalBalance).toBe('DEBIT');
    expect(r.transactionId).toMatch(UUID);
    expect(r.order).toBe('A-1');
    expect(r.lineAmounts).toEqual([12.5, 12.5]);
    expect(r.foundByOrder).toEqual([r.transactionId]);
    expect(r.foundByKey).toEqual([r.transactionId]);
    expect(r.patchedMetadata).toEqual({ desk: 'typed' });
    expect(r.accountsByDesk).toEqual([r.salesId]);
    expect(r.reversalId).toMatch(UUID);
    expect(r.reverses).toBe(r.transactionId);
    expect(r.reversedBy).toBe(r.reversalId);
    expect(r.reversesOfOriginal).toBeNull();
    expect(r.balance).toBe(12.5);
    expect(r.entryTypes).toEqual(['DEBIT']);
    expect(r.closingBalance).toBe(12.5);
    expect(r.trialBalanceItems).toEqual([['cash', 'USD', 12.5, 0], ['sales', 'USD', 0, 12.5]]);
    expect(r.trialBalanceTotals).toEqual([['USD', 12.5, 12.5]]);
    expect(r.auditHeadHash).toMatch(/^[0-9a-f]{64}$/);
    expect(r.historyAmounts).toEqual([0, 12.5]); // the hour that ended before the posting, then the one after it
    expect(r.keyPrefix).toMatch(/^sk_live_/);
    expect(r.keyCount).toBe(2);
    expect(r.settlementStatus).toBe('PENDING');
    expect(r.listedSettlements).toHaveLength(1);
    expect(r.cancelledStatus).toBe('CANCELLED');
    expect(r.outcome).toBe('NOT_APPLICABLE');
    expect(r.webhookSecretLength).toBe(64);
    expect(r.secretPrefix).toMatch(/^[0-9a-f]{8}\.\.\.$/);
    expect(r.ruleType).toBe('MAX_DEBIT_PER_SESSION');
    expect(r.ruleCount).toBe(1);
    expect(r.executedStatus).toBe('POSTED');
    expect(r.agentSession).toBe('session-1');
    expect(r.agentListed).toHaveLength(1);
    expect(r.agentAuditActions.length).toBeGreaterThan(0);
    expect(r.statementFormat).toBe('CSV');
    expect(r.statementDifference).toBeNull();
    expect(r.ignoredStatus).toBe('IGNORED');
    expect(r.windowDays).toBe(5);
    // The posting, its reversal and the agent's posting: none is on a statement.
    expect(r.unreconciledTypes).toEqual(['DEBIT', 'CREDIT', 'DEBIT']);
    expect(r.listedStatements).toEqual([1]);
    expect(r.deletedStatus).toBe(204);
    expect(r.revokedStatus).toBe(204);
  });
});
