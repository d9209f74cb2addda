// Messages between the HTTP thread and the writer thread.
import type { ErrorCode, ErrorDetail } from '../../core/errors.js';

/** What the writer thread starts on: the `--db` value. */
export interface WriterThreadData {
  db: string;
}

export interface JobMessage {
  type: 'jobs';
  jobs: Array<{ id: number; name: string; args: unknown }>;
}

export type ToWriter = JobMessage | { type: 'close' };

export type SerializedError =
  | { ledger: true; code: ErrorCode; message: string; details: ErrorDetail[] | undefined; extra: Record<string, unknown> | undefined }
  | { ledger: false; message: string };

export interface ResultMessage {
  type: 'results';
  results: Array<{ id: number; ok: true; value: unknown } | { id: number; ok: false; error: SerializedError }>;
}

/** `ready` carries the writer connection's durability settings as read back from it. */
export type FromWriter = ResultMessage | { type: 'ready'; durability: string } | { type: 'closed' };
