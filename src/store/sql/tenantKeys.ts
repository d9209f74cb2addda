// A tenant's key: what its rows and indexes hold in `tenant_id`, a few digits instead of its 36-character public id
// (issue 33). Statements translate `tenantId` arguments to it as they bind, and `tenant_id` back as rows are read.

/** Bound where a public id names no tenant: no key is ever empty, so the statement finds (or can refer to) none. */
export const NO_TENANT_KEY = '';

// A key never changes and is never given to another tenant, so what a store learned it keeps; a tenant created by the
// open write transaction is learned for that transaction only, since it may roll back.
export class TenantKeys {
  private static readonly KEPT_MAX = 100_000;
  private readonly keyByPublic = new Map<string, string>();
  private readonly publicByKey = new Map<string, string>();
  /** Public ids of tenants the open write transaction created. */
  private readonly created = new Set<string>();

  key(publicId: string): string | undefined {
    return this.keyByPublic.get(publicId);
  }

  publicId(key: string): string | undefined {
    return this.publicByKey.get(key);
  }

  learn(publicId: string, key: string): void {
    if (this.keyByPublic.size >= TenantKeys.KEPT_MAX) this.forgetAll();
    this.keyByPublic.set(publicId, key);
    this.publicByKey.set(key, publicId);
  }

  /** A tenant the open write transaction creates: what is learned of it lasts until the transaction ends. */
  creating(publicId: string): void {
    this.created.add(publicId);
  }

  /** The open write transaction ended (committed or not) or one of its commands rolled back. */
  forgetWriteState(): void {
    for (const publicId of this.created) {
      const key = this.keyByPublic.get(publicId);
      this.keyByPublic.delete(publicId);
      if (key !== undefined) this.publicByKey.delete(key);
    }
    this.created.clear();
  }

  private forgetAll(): void {
    this.keyByPublic.clear();
    this.publicByKey.clear();
  }
}

/** The SQL that finds a tenant's key by its public id, and its public id by its key (one `?`/`$1` each). */
export const TENANT_KEY_SQL = { key: 'SELECT id FROM tenants WHERE public_id = ?', publicId: 'SELECT public_id FROM tenants WHERE id = ?' } as const;

/** The name of the column rows carry a tenant in, and of the argument statements take it by. */
export const TENANT_COLUMN = 'tenant_id';
export const TENANT_ARG = 'tenantId';
