import { Prepared } from './src/store/prepared.js';
const stats = new Map<string, [number, bigint]>();
for (const m of ['run', 'get', 'all'] as const) {
  const orig = (Prepared.prototype as any)[m];
  (Prepared.prototype as any)[m] = function (this: any, args: any) {
    const t = process.hrtime.bigint();
    const r = orig.call(this, args);
    const key = (this.statement.source as string).slice(0, 60);
    const s = stats.get(key) ?? [0, 0n];
    s[0]++; s[1] += process.hrtime.bigint() - t; stats.set(key, s);
    return r;
  };
}
await import('./ip.ts');
for (const [k, [n, ns]] of [...stats].sort((a, b) => Number(b[1][1] - a[1][1]))) console.log(`${(Number(ns) / 1000 / 20000).toFixed(1)} µs/posting  ${(Number(ns) / n / 1000).toFixed(1)} µs/call  x${n}  ${k}`);
