// The interactive prompts at a terminal, through a real pseudo-terminal (util-linux `script`). README, CLI reference:
// "Missing arguments are asked for only when stdin and stdout are a terminal"; `keys create` without `--scopes` shows
// "a checkbox picker at a terminal"; `accounts create` "prompts for what is missing at a terminal". Without a terminal
// the same commands exit 2 instead (test/cli/exit-codes.test.ts).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cli, createTenant } from '../helpers/server.js';
import { until } from '../helpers/poll.js';
import { scopes } from '../../src/core/scopes.js';

const ENTER = '\r';
const DOWN = '\x1b[B';
const SPACE = ' ';

/** Runs the binary on a pseudo-terminal; `answer` waits for each prompt's text before typing its keys. */
function atTerminal(args: string[]) {
  const command = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  let screen = '';
  child.stdout.on('data', (d: Buffer) => (screen += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let seen = 0;
  return {
    screen: () => screen,
    exited,
    /**
     * Waits for the prompt `? <question>` to appear after what was already answered, and for the end of its first
     * drawing (`drawnBy`: a list's key hint), then types `keys`.
     */
    async answer(question: string, keys: string, drawnBy = question) {
      const at = await until(`the prompt "${question}"`, () => {
        const i = screen.indexOf(`? ${question}`, seen);
        if (i < 0) return undefined;
        const end = screen.indexOf(drawnBy, i);
        return end >= 0 ? end + drawnBy.length : undefined;
      }, 15_000);
      seen = at;
      child.stdin.write(keys);
    },
    kill: () => {
      if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
    },
  };
}

describe('prompts at a terminal', () => {
  let dir: string;
  let db: string;
  let tenantId: string;
  const running: Array<{ kill(): void }> = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-prompts-'));
    db = join(dir, 'ledger.db');
    tenantId = (await createTenant(db)).tenantId;
  });
  afterAll(() => {
    for (const r of running) r.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it('accounts create asks for the name, the currency and the type, and creates what was answered', async () => {
    const term = atTerminal(['--db', db, 'accounts', 'create', '--tenant', tenantId, '--json']);
    running.push(term);
    await term.answer('Account name', `Petty cash${ENTER}`);
    await term.answer('Currency', `${DOWN}${ENTER}`, 'navigate'); // BRL, then USD
    await term.answer('Type', `${DOWN}${ENTER}`, 'navigate'); // ASSET, then LIABILITY
    expect(await term.exited, term.screen()).toBe(0);
    for (const prompt of ['Account name', 'Currency', 'Type']) expect(term.screen()).toContain(prompt);
    const printed = JSON.parse(term.screen().slice(term.screen().lastIndexOf('{"id"')).trim());
    expect(printed).toMatchObject({ name: 'Petty cash', currency: 'USD', type: 'LIABILITY', normalBalance: 'CREDIT' });
    const listed = await cli(['--db', db, 'accounts', 'list', '--tenant', tenantId, '--json']);
    expect(JSON.parse(listed.stdout).items.find((a: { id: string }) => a.id === printed.id)).toMatchObject({ name: 'Petty cash', currency: 'USD', type: 'LIABILITY' });
  });

  it('accounts create asks only for what is missing', async () => {
    const term = atTerminal(['--db', db, 'accounts', 'create', '--tenant', tenantId, '--name', 'Fees', '--currency', 'EUR', '--json']);
    running.push(term);
    await term.answer('Type', `${DOWN}${DOWN}${DOWN}${DOWN}${ENTER}`, 'navigate'); // EXPENSE
    expect(await term.exited, term.screen()).toBe(0);
    expect(term.screen()).not.toContain('Account name');
    expect(term.screen()).not.toContain('Currency');
    expect(JSON.parse(term.screen().slice(term.screen().lastIndexOf('{"id"')).trim())).toMatchObject({ name: 'Fees', currency: 'EUR', type: 'EXPENSE' });
  });

  it('keys create without --scopes shows a checkbox picker, and the key gets the scopes ticked', async () => {
    const term = atTerminal(['--db', db, 'keys', 'create', '--tenant', tenantId, '--json']);
    running.push(term);
    await term.answer('Scopes for the new key', `${SPACE}${DOWN}${SPACE}${ENTER}`, 'navigate');
    expect(await term.exited, term.screen()).toBe(0);
    const printed = JSON.parse(term.screen().slice(term.screen().lastIndexOf('{"id"')).trim());
    expect(printed.scopes).toEqual([scopes[0], scopes[1]]);
    const listed = await cli(['--db', db, 'keys', 'list', '--tenant', tenantId, '--json']);
    const items = JSON.parse(listed.stdout).items ?? JSON.parse(listed.stdout);
    expect(items.find((k: { id: string }) => k.id === printed.id)?.scopes).toEqual([scopes[0], scopes[1]]);
  });
});
