// Which deferred statements the PostgreSQL writer may join into one multi-row INSERT (store/postgres/writeBuffer.ts).
import fc from 'fast-check';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { insertShape, quoteLiteral } from '../../src/store/postgres/writeBuffer.js';

describe('insertShape', () => {
  it('splits a one-row insert whose values are its parameters in order', () => {
    expect(insertShape('insert into "outbox" ("tenant_id", "id") values ($1, $2)')).toEqual({
      table: 'outbox',
      head: 'insert into "outbox" ("tenant_id", "id") values ',
      tail: '',
      keyAt: undefined,
    });
  });

  it('keys an upsert that sets every other column from excluded by its conflict target', () => {
    const text = 'insert into "balances" ("tenant_id", "account_id", "asset", "balance") values ($1, $2, $3, $4) on conflict ("tenant_id", "account_id", "asset") do update set "balance" = "excluded"."balance"';
    expect(insertShape(text)?.keyAt).toEqual([0, 1, 2]);
    expect(insertShape('insert into "t" ("k", "v") values ($1, $2) on conflict ("k") do nothing')?.keyAt).toBeUndefined();
  });

  it("takes a plain insert whose row reads another table's value by its parameters, as a row to write its values into", () => {
    const text = 'insert into "transaction_accounts" ("tenant_id", "account_id", "tx_seq") values ($1, $2, (select "seq" from "transactions" where "tenant_id" = $3 and "id" = $4))';
    expect(insertShape(text)).toEqual({
      table: 'transaction_accounts',
      head: 'insert into "transaction_accounts" ("tenant_id", "account_id", "tx_seq") values ',
      tail: '',
      keyAt: undefined,
      row: '($1, $2, (select "seq" from "transactions" where "tenant_id" = $3 and "id" = $4))',
    });
    // Not with a conflict clause, nor a literal in it.
    expect(insertShape(`${text} on conflict do nothing`)).toBeUndefined();
    expect(insertShape(text.replace('$4', "'x'"))).toBeUndefined();
  });

  it('leaves alone what joining rows would change: other statements, literals, parameters after the row, other upserts', () => {
    for (const text of [
      'update "t" set "v" = $1 where "k" = $2',
      'insert into "t" ("k", "v") values ($1, 0)',
      'insert into "t" ("k", "v") values ($2, $1)',
      'insert into "t" ("k", "v") values ($1, $2) on conflict ("k") do update set "v" = $3',
      'insert into "t" ("k", "v") values ($1, $2) on conflict ("k") do update set "v" = "t"."v" + "excluded"."v"',
      'insert into "t" ("k", "v") values ($1, $2) returning "seq"',
    ]) {
      expect(insertShape(text), text).toBeUndefined();
    }
  });
});

describe('quoteLiteral', () => {
  it("writes every string exactly as pg's escapeLiteral does", () => {
    const escapeLiteral = pg.Client.prototype.escapeLiteral.bind(undefined);
    for (const text of ['', "'", '\\', "a'b\\c''", 'é😀\\\'']) expect(quoteLiteral(text)).toBe(escapeLiteral(text));
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom("'", '\\', 'a', 'é', '😀', '"', '$') }), (text) => quoteLiteral(text) === escapeLiteral(text)));
    fc.assert(fc.property(fc.string({ unit: 'grapheme' }), (text) => quoteLiteral(text) === escapeLiteral(text)));
  });
});
