// Turns valibot issues into one 400 with a readable message and per-field details.
import * as v from 'valibot';
import { invalid, type ErrorDetail } from './errors.js';

const DETAILS_MAX = 20;

function describe(issue: v.BaseIssue<unknown>): ErrorDetail {
  const path = v.getDotPath(issue) ?? '';
  // strictObject reports an unknown key as "expected never".
  if (issue.expected === 'never' && issue.type === 'strict_object') {
    return { path, message: 'is not a known field' };
  }
  return { path, message: issue.message };
}

export function parseWith<S extends v.GenericSchema>(schema: S, input: unknown, what: string): v.InferOutput<S> {
  const result = v.safeParse(schema, input, { abortPipeEarly: true });
  if (result.success) return result.output;
  const details = result.issues.slice(0, DETAILS_MAX).map(describe);
  const first = details[0];
  const where = first?.path ? `${first.path} ` : '';
  throw invalid(`Invalid ${what}: ${where}${first?.message ?? 'is invalid'}.`, details);
}
