// Caps on event streams, so that streams, which hold their connections, leave slots for ordinary requests: per
// tenant, for the whole server and per client address; counted in this process's memory, like the rate limit.
import { LedgerError } from '../core/errors.js';
import {
  MAX_CONNECTIONS_DEFAULT,
  MAX_CONNECTIONS_PER_CLIENT_DEFAULT,
  MAX_STREAMS_PER_TENANT_DEFAULT,
  STREAM_RETRY_AFTER_SECONDS,
  STREAMS_CONNECTIONS_DIVISOR,
} from '../core/limits.js';

export interface StreamCaps {
  /** Streams one tenant may hold open. */
  perTenant: number;
  /** Streams all tenants together may hold open. */
  total: number;
  /** Streams from one client address. */
  perClient: number;
}

// Per tenant (`--max-streams-per-tenant`), so that one key cannot take all; half of `--max-connections`, so streams
// leave the other half to requests; half of `--max-connections-per-client`, so a client at its stream cap is not then
// refused its own requests at the door, without an answer.
/** The caps of a server with these connection limits. */
export const streamCapsFor = (
  limits: { maxConnections?: number; maxConnectionsPerClient?: number; maxStreamsPerTenant?: number } = {},
): StreamCaps => ({
  perTenant: limits.maxStreamsPerTenant ?? MAX_STREAMS_PER_TENANT_DEFAULT,
  total: Math.floor((limits.maxConnections ?? MAX_CONNECTIONS_DEFAULT) / STREAMS_CONNECTIONS_DIVISOR),
  perClient: Math.floor((limits.maxConnectionsPerClient ?? MAX_CONNECTIONS_PER_CLIENT_DEFAULT) / STREAMS_CONNECTIONS_DIVISOR),
});

/** A refusal that also closes its connection: a refused stream must not go on holding the slot it was refused. */
const refused = (message: string) =>
  new LedgerError('RATE_LIMITED', `${message}; retry in ${STREAM_RETRY_AFTER_SECONDS} s.`, {
    retryAfterSeconds: STREAM_RETRY_AFTER_SECONDS,
    closeConnection: true,
  });

/** A count per key, its keys forgotten at zero. */
class Counts {
  private readonly counts = new Map<string, number>();
  get(key: string): number {
    return this.counts.get(key) ?? 0;
  }
  add(key: string, n: 1 | -1): void {
    const next = this.get(key) + n;
    if (next > 0) this.counts.set(key, next);
    else this.counts.delete(key);
  }
  get size(): number {
    return this.counts.size;
  }
}

export class StreamSlots {
  private readonly byTenant = new Counts();
  private readonly byClient = new Counts();
  private total = 0;

  constructor(private readonly caps: StreamCaps = streamCapsFor()) {}

  /** Streams open now: in all, or of one tenant. */
  open(tenantId?: string): number {
    return tenantId === undefined ? this.total : this.byTenant.get(tenantId);
  }

  /** Tenants and client addresses with a stream open (both drop to 0 once every stream has ended). */
  get tracked(): { tenants: number; clients: number } {
    return { tenants: this.byTenant.size, clients: this.byClient.size };
  }

  /** Takes a slot for a stream of the tenant from the client address, or refuses with 429; the function returned gives it back (once). */
  take(tenantId: string, client: string): () => void {
    const ofTenant = this.byTenant.get(tenantId);
    if (ofTenant >= this.caps.perTenant) {
      throw refused(`This tenant has ${ofTenant} event streams open, the most one tenant may (--max-streams-per-tenant); close one`);
    }
    const ofClient = this.byClient.get(client);
    if (ofClient >= this.caps.perClient) {
      throw refused(
        `This client address has ${ofClient} event streams open, the most one address may (half of --max-connections-per-client, the rest kept for its other requests); close one`,
      );
    }
    if (this.total >= this.caps.total) {
      throw refused(`The server has ${this.total} event streams open, the most it allows (half of --max-connections, the rest kept for other requests)`);
    }
    this.byTenant.add(tenantId, 1);
    this.byClient.add(client, 1);
    this.total++;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.byTenant.add(tenantId, -1);
      this.byClient.add(client, -1);
      this.total--;
    };
  }
}
