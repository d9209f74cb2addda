import { collect } from '../helpers/rows.js';
// The request parser refuses as soon as a limit is broken, without reading further and without recursion; the rate limiter's arithmetic.
import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { JsonNumber, parseJson, ShapeBreach, type BodyShape } from '../../src/core/json.js';
import { parseBodyText, shapeOf } from '../../src/core/validate.js';
import * as schemas from '../../src/core/schemas.js';
import { allRoutes } from '../../src/server/app.js';
import { RateLimiter } from '../../src/server/rateLimit.js';
import { LedgerError } from '../../src/core/errors.js';
import { ANSWER_SIZE_MAX_BYTES, JSON_DEPTH_MAX } from '../../src/core/limits.js';
import { AuditService } from '../../src/core/usecases/audit.js';
import type { StoredAuditRecord } from '../../src/core/ports.js';
import type { Deps } from '../../src/core/context.js';

const MiB = 1024 * 1024;
/** Text that is not JSON: a parser that reads it fails with a syntax error, so a limit breach proves it stopped before. */
const GARBAGE = `@${'x'.repeat(MiB)}`;

function refusal(fn: () => unknown): LedgerError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(LedgerError);
    return error as LedgerError;
  }
  throw new Error('expected a refusal');
}

const line = '{"accountId":"0192f1e0-0000-7000-8000-000000000001","entryType":"DEBIT","monetaryEntry":{"type":"FIAT","amount":1,"currency":"USD","rail":"ACH"}}';

describe('count limits are enforced while reading, before the rest of the body is read', () => {
  const cases: Array<{ name: string; schema: v.GenericSchema; head: string; element: string; count: number; path: string; message: RegExp }> = [
    { name: 'lines (1,000)', schema: schemas.postTransactionBody, head: '{"lines":[', element: '1', count: 1001, path: 'lines', message: /at most 1000 lines/ },
    { name: 'lines of {} (1,000)', schema: schemas.postTransactionBody, head: '{"lines":[', element: '{}', count: 1001, path: 'lines', message: /at most 1000 lines/ },
    { name: 'scopes (12)', schema: schemas.createApiKeyBody, head: '{"scopes":[', element: '"ADMIN"', count: 13, path: 'scopes', message: /at most 12 scopes/ },
    { name: 'transactionIds (100)', schema: schemas.reconciliationBatchBody, head: '{"transactionIds":[', element: '"x"', count: 101, path: 'transactionIds', message: /at most 100 ids/ },
    { name: 'policy tokens (4)', schema: schemas.createPolicyRuleBody, head: '{"type":"ALLOWED_TOKENS","tokens":[', element: '"USDC"', count: 5, path: 'tokens', message: /at most 4/ },
    { name: 'policy chains (3)', schema: schemas.createPolicyRuleBody, head: '{"type":"ALLOWED_CHAINS","chains":[', element: '"EVM"', count: 4, path: 'chains', message: /at most 3/ },
  ];
  for (const c of cases) {
    it(`${c.name}: one element past the limit is refused with the schema's own message`, () => {
      const text = `${c.head}${Array.from({ length: c.count }, () => c.element).join(',')},${GARBAGE}`;
      const error = refusal(() => parseBodyText(c.schema, text));
      expect(error.code).toBe('VALIDATION_FAILED');
      expect(error.message).toMatch(c.message);
      expect(error.details).toEqual([{ path: c.path, message: expect.stringMatching(c.message) }]);
    });
    it(`${c.name}: exactly the limit is read on (and fails later, on the garbage after the list)`, () => {
      const text = `${c.head}${Array.from({ length: c.count - 1 }, () => c.element).join(',')}]${GARBAGE}`;
      expect(refusal(() => parseBodyText(c.schema, text)).message).toMatch(/^Invalid JSON/);
    });
  }

  it('metadata: the 51st entry is refused', () => {
    const entries = Array.from({ length: 51 }, (_, i) => `"k${i}":"v"`).join(',');
    const error = refusal(() => parseBodyText(schemas.postTransactionBody, `{"lines":[${line},${line}],"metadata":{${entries},${GARBAGE}`));
    expect(error.details).toEqual([{ path: 'metadata', message: 'must have at most 50 entries' }]);
  });

  it('an unknown field is refused where it appears, at any depth', () => {
    expect(refusal(() => parseBodyText(schemas.postTransactionBody, `{"extra":[${GARBAGE}`)).details).toEqual([{ path: 'extra', message: 'is not a known field' }]);
    const nested = `{"lines":[{"accountId":"x","monetaryEntry":{"type":"FIAT","nope":${GARBAGE}`;
    expect(refusal(() => parseBodyText(schemas.postTransactionBody, nested)).details).toEqual([{ path: 'lines.0.monetaryEntry.nope', message: 'is not a known field' }]);
  });

  it('an object or array where a value belongs is refused at its first character, with valibot\'s message', () => {
    const error = refusal(() => parseBodyText(schemas.createAccountBody, `{"name":[${GARBAGE}`));
    expect(error.details).toEqual([{ path: 'name', message: expect.stringMatching(/Expected string but received Array/) }]);
    const amount = refusal(() => parseBodyText(schemas.postTransactionBody, `{"lines":[{"monetaryEntry":{"amount":{${GARBAGE}`));
    expect(amount.details).toEqual([{ path: 'lines.0.monetaryEntry.amount', message: 'must be a number or a decimal string' }]);
  });

  it('a body within every limit parses to the same value as before, numbers as their exact digits', () => {
    const value = parseBodyText(schemas.postTransactionBody, `{"lines":[${line.replace('"amount":1', '"amount":12345678901234567.89')},${line}],"metadata":{"a":"b"}}`);
    expect(value.lines[0]!.monetaryEntry.amount).toEqual(new JsonNumber('12345678901234567.89'));
    expect(value.metadata).toEqual({ a: 'b' });
  });
});

describe('nesting is refused while reading, without recursion', () => {
  it('2 MiB of [ is refused at level 17, with a message that says nothing of the parser', () => {
    for (const text of [`{"a":${'['.repeat(2 * MiB)}`, `{"a":${'{"a":'.repeat(400_000)}`]) {
      const error = refusal(() => parseJson(text));
      expect(error.message).toBe(`Invalid JSON: nesting deeper than ${JSON_DEPTH_MAX} levels.`);
      expect(error.message).not.toMatch(/stack|call|Maximum|RangeError/i);
    }
  });

  it('16 levels are read', () => {
    const text = `{"a":${'['.repeat(JSON_DEPTH_MAX - 1)}${']'.repeat(JSON_DEPTH_MAX - 1)}}`;
    expect(parseJson(text)).toBeTypeOf('object');
  });

  it('syntax errors name the position, never the parser\'s inside', () => {
    for (const text of ['{', '{"a":}', '{"a":1,}', '{"a" 1}', '{"a":tru}', '{"a":"\u0001"}', '{"a":"\\x"}', '{"a":1}x', '{"a":01}', '', '   ', '[1]', '"s"', 'null']) {
      const error = refusal(() => parseJson(text));
      expect(error.code).toBe('VALIDATION_FAILED');
      expect(error.message).toMatch(/^Invalid JSON: /);
      expect(error.message).not.toMatch(/stack|undefined|TypeError|SyntaxError/);
    }
  });

  it('repeated and prototype keys are refused at any depth', () => {
    expect(refusal(() => parseJson('{"a":1,"a":1}')).message).toMatch(/appears twice/);
    expect(refusal(() => parseJson('{"b":{"a":1,"a":2}}')).message).toMatch(/appears twice/);
    expect(refusal(() => parseJson('{"b":[{"__proto__":1}]}')).message).toMatch(/not allowed/);
    expect(refusal(() => parseJson('{"\\u005f_proto__":1}')).message).toMatch(/not allowed/);
  });
});

describe('every request body has a count limit on each of its lists and maps', () => {
  function unbounded(shape: BodyShape, path: string): string[] {
    switch (shape.kind) {
      case 'object':
        return [...shape.fields].flatMap(([key, field]) => unbounded(field, `${path}.${key}`));
      case 'array':
        return [...(Number.isFinite(shape.max) ? [] : [path]), ...unbounded(shape.item, `${path}[]`)];
      case 'record':
        return [...(Number.isFinite(shape.max) ? [] : [path]), ...unbounded(shape.value, `${path}{}`)];
      case 'any':
        return [`${path} (not understood)`];
      default:
        return [];
    }
  }
  for (const route of allRoutes.filter((r) => r.body)) {
    it(`${route.method} ${route.path}`, () => {
      const shape = shapeOf(route.body);
      expect(shape.kind).toBe('object');
      expect(unbounded(shape, 'body')).toEqual([]);
    });
  }
  it('a breach is a ShapeBreach with the path and the message', () => {
    try {
      parseJson('{"a":[1,2]}', { kind: 'object', strict: true, fields: new Map([['a', { kind: 'array', max: 1, message: 'one at most', item: { kind: 'any' } }]]) });
      throw new Error('not refused');
    } catch (error) {
      expect(error).toBeInstanceOf(ShapeBreach);
      expect((error as ShapeBreach).detail).toEqual({ path: 'a', message: 'one at most' });
    }
  });
});

describe('rate limiter: a token bucket per key, burst = the rate', () => {
  const limited = (limiter: RateLimiter, key: string) => {
    try {
      limiter.take(key);
      return null;
    } catch (error) {
      return error as LedgerError;
    }
  };

  it('serves the burst, then refuses with RATE_LIMITED and when to retry; refills at the rate', () => {
    let now = 0;
    const limiter = new RateLimiter(5, () => now);
    for (let i = 0; i < 5; i++) expect(limited(limiter, 'k')).toBeNull();
    const error = limited(limiter, 'k')!;
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.retryAfterSeconds).toBe(1);
    now += 200; // one token back
    expect(limited(limiter, 'k')).toBeNull();
    expect(limited(limiter, 'k')?.code).toBe('RATE_LIMITED');
    now += 10_000; // never more than the burst
    for (let i = 0; i < 5; i++) expect(limited(limiter, 'k')).toBeNull();
    expect(limited(limiter, 'k')?.code).toBe('RATE_LIMITED');
  });

  it('keys are apart', () => {
    const limiter = new RateLimiter(1, () => 0);
    expect(limited(limiter, 'a')).toBeNull();
    expect(limited(limiter, 'a')?.code).toBe('RATE_LIMITED');
    expect(limited(limiter, 'b')).toBeNull();
  });

  it('a rate under one a second still allows one request, and says how long to wait', () => {
    let now = 0;
    const limiter = new RateLimiter(0.25, () => now);
    expect(limited(limiter, 'k')).toBeNull();
    expect(limited(limiter, 'k')?.retryAfterSeconds).toBe(4);
    now += 4000;
    expect(limited(limiter, 'k')).toBeNull();
  });
});

describe('the audit export holds at most 4 MiB of a page in memory', () => {
  it('pages end before the record that would pass the cap, continue right after it, and read no row beyond', async () => {
    const payload = JSON.stringify({ note: 'p'.repeat(10_000) });
    const records: StoredAuditRecord[] = Array.from({ length: 3000 }, (_, i) => ({
      seq: i + 1,
      id: `r${i}`,
      type: 'HUMAN',
      action: 'CREATE_ACCOUNT',
      actorKeyId: 'k',
      occurredAt: `2026-01-01T00:00:${String(Math.floor(i / 1000)).padStart(2, '0')}.${String(i % 1000).padStart(3, '0')}Z`,
      payloadJson: payload,
      prevHash: null,
      hash: 'h',
    }));
    let pulled = 0;
    const store = {
      *auditPage(_tenant: string, _range: unknown, after: { occurredAt: string; seq: number } | null, limit: number) {
        const start = after ? records.findIndex((r) => r.seq === after.seq) + 1 : 0;
        for (const r of records.slice(start, start + limit)) {
          pulled++;
          yield r;
        }
      },
    };
    const chunks = [...(await collect(new AuditService({ store } as unknown as Deps).export('t', { from: 0, to: Date.UTC(2100, 0, 1) })))];
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks) expect(Buffer.byteLength(chunk)).toBeLessThanOrEqual(ANSWER_SIZE_MAX_BYTES);
    const ids = chunks.flatMap((c) => c.trimEnd().split('\n').map((l) => JSON.parse(l).id as string));
    expect(ids).toEqual(records.map((r) => r.id));
    // Each page reads one row past what it keeps, at most (the row that did not fit).
    expect(pulled).toBeLessThanOrEqual(records.length + chunks.length);
  });
});
