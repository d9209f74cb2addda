// One `ledger serve` per SQLite file (issue 14): a second server on a file another server is serving refuses to start
// with a message that points to PostgreSQL (exit 1, no stack trace); once the first has stopped, however it stopped,
// a server starts again. The CLI and the workers (`watch`, `webhooks run`) still run beside a server.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/server.js';
import { killAll, spawnServe } from '../helpers/spawn.js';

describe('one server per SQLite file', () => {
  let dir: string;
  let db: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-one-server-'));
    db = join(dir, 'ledger.db');
  });
  afterAll(async () => {
    await killAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a second serve on the file, pointing to PostgreSQL; starts again once the first is gone, even killed', async () => {
    const first = await spawnServe(db);
    const second = await cli(['--db', db, 'serve', '--port', '0']);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`Another ledger serve is serving ${db}`);
    expect(second.stderr).toContain('move it to PostgreSQL');
    expect(second.stderr).not.toMatch(/\n\s+at /);
    // The CLI still works beside the server.
    expect((await cli(['--db', db, 'tenants', 'create', 'Beside', '--json'])).code).toBe(0);

    first.kill();
    await first.exited;
    const third = await spawnServe(db);
    third.child.kill('SIGTERM');
    expect(await third.exited).toEqual({ code: 0, signal: null });
    const fourth = await spawnServe(db);
    fourth.kill();
  });
});
