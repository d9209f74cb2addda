// Time-ordered UUIDs (version 7): new rows land at the end of each index.
import { v7 } from 'uuid';

export interface IdGenerator {
  /** A time-ordered UUID (version 7). */
  next(): string;
}

export const uuidV7: IdGenerator = { next: () => v7() };

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string): boolean => uuidPattern.test(value);
