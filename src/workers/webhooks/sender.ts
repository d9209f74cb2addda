// The webhook sender: reads each tenant's outbox in commit order and delivers, at least once, with retries.
// One delivery in flight per tenant (so order holds), many tenants in parallel (so one failing tenant delays no other).
import type { Ledger } from '../../core/ledger.js';
import type { Leases } from '../../core/ports.js';
import type { Logger } from '../../core/ports.js';
import { nextDelivery, type NextDelivery } from '../../core/usecases/webhooks.js';
import { calledUrl, DEFAULT_RETRY_POLICY, eventBody, retryDelayMs, retryWindowOver, signature, type DeliveryState, type OutboxEvent, type RetryPolicy, type Webhook } from '../../core/webhook.js';
import { postOnce, type AttemptOutcome, type DeliveryOptions } from './delivery.js';
import { VERSION } from '../../version.js';
import { WEBHOOK_ERROR_TEXT_MAX, WEBHOOK_IN_FLIGHT_MAX, WEBHOOK_POLL_MS, WEBHOOK_TENANT_RESCAN_MS } from '../../core/limits.js';

const FAILED = Symbol('read failed');

export interface SenderOptions extends DeliveryOptions {
  /** One sender at a time works a tenant, across every process on the database. */
  leases: Leases;
  retry?: RetryPolicy;
  pollIntervalMs?: number;
}

export class WebhookSender {
  private readonly timer: NodeJS.Timeout;
  private readonly inFlight = new Map<string, Promise<void>>();
  private stopped = false;
  private readonly stopping = new AbortController();
  private readonly retry: RetryPolicy;
  /**
   * Per tenant, the last event this sender finished (delivered or given up). The next one may go as soon as the answer
   * is in, while the record of the last one is still committing; if that record is lost in a crash, the event goes again.
   */
  private readonly finished = new Map<string, number>();
  private recording: Promise<unknown> = Promise.resolve();
  /**
   * What the last full pass over the tenants saw: the database's change version, and the earliest retry it found not
   * yet due. A tick with the same version before that time has nothing new to send, so it reads nothing.
   */
  private passVersion: string | null = null;
  private passDueAt = 0;
  private passAt = 0;
  /** The pass under way (one at a time), and whether another was asked for meanwhile (forced or not). */
  private passing: Promise<void> | undefined;
  private passAgain: { force: boolean } | undefined;

  constructor(
    private readonly ledger: Ledger,
    private readonly log: Logger,
    private readonly options: SenderOptions,
  ) {
    this.retry = options.retry ?? DEFAULT_RETRY_POLICY;
    this.timer = setInterval(() => this.tick(), options.pollIntervalMs ?? WEBHOOK_POLL_MS);
    this.timer.unref();
    this.tick();
  }

  private tick(force = false): void {
    if (this.stopped) return;
    if (this.passing) {
      this.passAgain = { force: force || (this.passAgain?.force ?? false) };
      return;
    }
    this.passing = this.pass(force).finally(() => {
      this.passing = undefined;
      const again = this.passAgain;
      this.passAgain = undefined;
      if (again) this.tick(again.force);
    });
  }

  private async pass(force: boolean): Promise<void> {
    const now = Date.now();
    let version: string;
    let webhooks: Webhook[];
    try {
      version = await this.ledger.store.changeVersion();
      if (!force && version === this.passVersion && now < this.passDueAt && now - this.passAt < WEBHOOK_TENANT_RESCAN_MS) return;
      webhooks = await this.ledger.store.webhooks();
    } catch (error) {
      this.log(`webhook sender: could not read webhooks (retried next tick): ${String(error)}`);
      return;
    }
    let dueAt = Infinity;
    let whole = true;
    const at = new Date(now).toISOString();
    for (const listed of webhooks) {
      if (this.stopped) return;
      if (this.inFlight.size >= WEBHOOK_IN_FLIGHT_MAX) {
        whole = false;
        break;
      }
      const { tenantId } = listed;
      if (this.inFlight.has(tenantId)) continue;
      let webhook = listed;
      let job = await this.nextJob(webhook, at);
      if (job && job !== FAILED && !('waitUntil' in job)) {
        const heldBefore = this.options.leases.holds(`webhooks:${tenantId}`);
        // Another process's sender works this tenant: it goes on with it (and hands it over when it has none).
        if (!(await this.leaseOf(tenantId))) continue;
        // The URL and secret read again, after the event: a PUT committed before the event is then always seen (the
        // list above may predate both, and the event would go out signed with the secret the PUT replaced).
        const current = await this.attempt(`read the webhook of ${tenantId}`, () => this.ledger.store.webhook(tenantId));
        if (current === FAILED) job = FAILED;
        else if (!current) continue;
        else {
          webhook = current;
          // A lease just taken: its last holder recorded what it sent before letting go, and the list above may
          // predate that record, so the next event is read again from what is recorded now (else it goes twice).
          if (!heldBefore) job = await this.nextJob(webhook, at);
        }
      }
      if (this.stopped) continue;
      if (job === FAILED) {
        whole = false;
        continue;
      }
      if (!job) {
        await this.handOver(tenantId);
        continue;
      }
      if ('waitUntil' in job) {
        dueAt = Math.min(dueAt, Date.parse(job.waitUntil));
        continue;
      }
      const run = this.deliver(webhook, job.event, job.state, job.redelivery)
        .catch((error: unknown) => this.log(`webhook sender: ${error instanceof Error ? error.message : String(error)}`))
        .finally(() => {
          this.inFlight.delete(tenantId);
          // The next event of this tenant may go at once.
          if (!this.stopped) setImmediate(() => this.tick(true));
        });
      this.inFlight.set(tenantId, run);
    }
    // A pass cut short by the in-flight cap lets the next tick read again.
    this.passVersion = whole ? version : null;
    this.passDueAt = dueAt;
    this.passAt = now;
  }

  /** The tenant's next delivery, counting what this sender finished and may not have recorded yet. */
  private nextJob(webhook: Webhook, now: string): Promise<NextDelivery | typeof FAILED> {
    const finished = this.finished.get(webhook.tenantId) ?? 0;
    return this.attempt(`read the outbox of ${webhook.tenantId}`, () =>
      nextDelivery(this.ledger.store, { ...webhook, deliveredSeq: Math.max(webhook.deliveredSeq, finished) }, now),
    );
  }

  /** A read that may fail (the database away for a moment): logged, and tried again next tick. */
  private async attempt<T>(what: string, read: () => Promise<T>): Promise<T | typeof FAILED> {
    try {
      return await read();
    } catch (error) {
      this.log(`webhook sender: could not ${what} (retried next tick): ${String(error)}`);
      return FAILED;
    }
  }

  private leaseOf(tenantId: string): Promise<boolean> {
    return this.options.leases.tryHold(`webhooks:${tenantId}`).catch((error: unknown) => {
      this.log(`webhook sender: could not take the lease of ${tenantId} (retried next tick): ${String(error)}`);
      return false;
    });
  }

  /** A tenant with nothing left to send is left to whichever sender sees its next event first, once its records are in. */
  private async handOver(tenantId: string): Promise<void> {
    const name = `webhooks:${tenantId}`;
    if (!this.options.leases.holds(name)) return;
    await this.recording;
    if (!this.inFlight.has(tenantId)) await this.options.leases.release(name);
  }

  private async deliver(webhook: Webhook, event: OutboxEvent, previous: DeliveryState | undefined, redelivery: boolean): Promise<void> {
    const attempt = (previous?.attempts ?? 0) + 1;
    const startedAt = new Date();
    // URL and secret as they are now: a PUT since the event was committed sends it to the new place, newly signed.
    const body = eventBody(event, startedAt.toISOString());
    const headers = {
      'content-type': 'application/json',
      'user-agent': `ledger-webhooks/${VERSION}`,
      'x-ledger-signature': signature(webhook.secret, body),
      'x-ledger-event-id': event.id,
      'x-ledger-event-type': event.type,
      'x-ledger-delivery-attempt': String(attempt),
    };
    let outcome: AttemptOutcome;
    try {
      outcome = await postOnce(new URL(calledUrl(webhook)), body, headers, this.options, this.stopping.signal);
    } catch (error) {
      outcome = { ok: false, statusCode: null, error: error instanceof Error ? error.message : String(error) };
    }
    // Stopped mid-delivery: nothing is recorded, so the event goes again after a restart (at least once).
    if (this.stopped) return;
    const at = new Date();
    const firstAttemptAt = previous?.firstAttemptAt ?? startedAt.toISOString();
    const dead = !outcome.ok && retryWindowOver(this.retry, firstAttemptAt, at);
    const state: DeliveryState = {
      tenantId: webhook.tenantId,
      eventId: event.id,
      eventSeq: event.seq,
      type: event.type,
      status: outcome.ok ? 'DELIVERED' : dead ? 'DEAD' : redelivery ? 'QUEUED' : 'PENDING',
      attempts: attempt,
      lastStatusCode: outcome.statusCode,
      lastError: outcome.ok ? null : outcome.error.slice(0, WEBHOOK_ERROR_TEXT_MAX),
      firstAttemptAt,
      nextAttemptAt: outcome.ok || dead ? null : new Date(at.getTime() + retryDelayMs(this.retry, attempt)).toISOString(),
      updatedAt: at.toISOString(),
    };
    const recorded = this.ledger.writer.run('recordWebhookAttempt', { state, redelivery });
    this.recording = Promise.allSettled([this.recording, recorded]);
    if (!redelivery && (state.status === 'DELIVERED' || state.status === 'DEAD')) {
      this.finished.set(webhook.tenantId, Math.max(this.finished.get(webhook.tenantId) ?? 0, event.seq));
      // The next event does not wait for this record to commit.
      recorded.catch((error: unknown) => this.log(`webhook sender: recording delivery of ${event.id} failed: ${String(error)}`));
      return;
    }
    // A retry is scheduled from what is recorded, so it waits for the record.
    await recorded;
  }

  /** Stops polling and cuts deliveries under way short (they go again after a restart). */
  async close(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.stopping.abort();
    await this.passing;
    await Promise.all(this.inFlight.values());
    await this.recording;
  }
}
