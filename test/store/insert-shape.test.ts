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

  it('splits an insert that reads its row from a VALUES list joined to another table, its parameters all in the row', () => {
    const text =
      'insert into "transaction_accounts" ("tenant_id", "account_id", "tx_seq") select "t"."tenant_id", "v"."column3", "t"."seq" from (values ($1, $2, $3)) as "v" inner join "transactions" as "t" on "t"."tenant_id" = "v"."column1" and "t"."id" = "v"."column2"';
    expect(insertShape(text)).toEqual({
      table: 'transaction_accounts',
      head: 'insert into "transaction_accounts" ("tenant_id", "account_id", "tx_seq") select "t"."tenant_id", "v"."column3", "t"."seq" from (values ',
      tail: ') as "v" inner join "transactions" as "t" on "t"."tenant_id" = "v"."column1" and "t"."id" = "v"."column2"',
      keyAt: undefined,
    });
    // Not with a parameter outside the row, nor a literal in it, nor an answer asked for.
    expect(insertShape(text.replace('"v"."column2"', '$4'))).toBeUndefined();
    expect(insertShape(text.replace('$3', "'x'"))).toBeUndefined();
    expect(insertShape(`${text} returning "seq"`)).toBeUndefined();
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
