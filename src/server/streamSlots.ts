// An event stream holds its connection for as long as its client follows it. Two caps keep streams from taking the
// connections every other request needs: one per tenant (`--max-streams-per-tenant`), so that one key cannot take
// the streams of all; and one for the whole server (half of `--max-connections`), so that streams together leave the
// other half to ordinary requests. Counted in this process's memory, like the rate limit.
import { LedgerError } from '../core/errors.js';
import { MAX_CONNECTIONS_DEFAULT, MAX_STREAMS_PER_TENANT_DEFAULT, STREAM_RETRY_AFTER_SECONDS, STREAMS_CONNECTIONS_DIVISOR } from '../core/limits.js';

export interface StreamCaps {
  /** Streams one tenant may hold open. */
  perTenant: number;
  /** Streams all tenants together may hold open. */
  total: number;
}

/** The caps a server with this many connections at most gives streams. */
export const streamCapsFor = (maxConnections = MAX_CONNECTIONS_DEFAULT, perTenant = MAX_STREAMS_PER_TENANT_DEFAULT): StreamCaps => ({
  perTenant,
  total: Math.floor(maxConnections / STREAMS_CONNECTIONS_DIVISOR),
});

/** A refusal that also closes its connection: a refused stream must not go on holding the slot it was refused. */
const refused = (message: string) =>
  new LedgerError('RATE_LIMITED', `${message}; retry in ${STREAM_RETRY_AFTER_SECONDS} s.`, {
    retryAfterSeconds: STREAM_RETRY_AFTER_SECONDS,
    closeConnection: true,
  });

export class StreamSlots {
  private readonly byTenant = new Map<string, number>();
  private total = 0;

  constructor(private readonly caps: StreamCaps = streamCapsFor()) {}

  /** Streams open now: in all, and of one tenant. */
  open(tenantId?: string): number {
    return tenantId === undefined ? this.total : (this.byTenant.get(tenantId) ?? 0);
  }

  /** Takes a slot for a stream of the tenant, or refuses with 429; the function returned gives it back (once). */
  take(tenantId: string): () => void {
    const held = this.byTenant.get(tenantId) ?? 0;
    if (held >= this.caps.perTenant) {
      throw refused(`This tenant has ${held} event streams open, the most one tenant may (--max-streams-per-tenant); close one`);
    }
    if (this.total >= this.caps.total) {
      throw refused(`The server has ${this.total} event streams open, the most it allows (half of --max-connections, the rest kept for other requests)`);
    }
    this.byTenant.set(tenantId, held + 1);
    this.total++;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.total--;
      const left = (this.byTenant.get(tenantId) ?? 1) - 1;
      if (left > 0) this.byTenant.set(tenantId, left);
      else this.byTenant.delete(tenantId);
    };
  }
}
