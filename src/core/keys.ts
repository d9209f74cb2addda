// API key material: generation from a CSPRNG and the keyed hash that is all the store ever sees.
import { createHmac, randomBytes } from 'node:crypto';

export const API_KEY_PREFIX = 'sk_live_';
export const API_KEY_VISIBLE_PREFIX_LENGTH = 12;
const rawKeyPattern = /^sk_live_[0-9a-f]{32}$/;

export const generateRawKey = (): string => `${API_KEY_PREFIX}${randomBytes(16).toString('hex')}`;

export const isWellFormedKey = (raw: string): boolean => rawKeyPattern.test(raw);

export const visiblePrefix = (raw: string): string => raw.slice(0, API_KEY_VISIBLE_PREFIX_LENGTH);

/** HMAC-SHA256 under a secret of the database, so a copy of the key table alone cannot be brute-forced offline. */
export const hashKey = (pepper: Buffer, raw: string): string => createHmac('sha256', pepper).update(raw).digest('hex');
