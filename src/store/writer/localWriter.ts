// The writer on this thread: commands run against one connection of the store, through group commit. It is the same
// on every engine: the engine that opens it gives it the connection's transaction statements (TxControl).
import { commandLines, commandReadAhead, commandScope, commandShare, commandWeight, runCommand, type CommandArgs, type CommandName, type CommandResult, type Writer } from '../../core/commands.js';
import type { ReadAhead, WriteContext } from '../../core/ports.js';
import { CommitClock, systemClock, type Clock } from '../../core/time.js';
import { uuidV7, type IdGenerator } from '../../core/ids.js';
import { PEPPER_SECRET } from '../../core/context.js';
import { GroupCommitter, type TxControl } from './groupCommit.js';
import type { SqlStore } from '../sql/sqlStore.js';

export class LocalWriter implements Writer {
  private readonly committer: GroupCommitter;
  private readonly ctx: WriteContext;

  private constructor(store: SqlStore, tx: TxControl, ctx: WriteContext, readAhead: boolean) {
    // Under the group's locks: what its commands will read, and the last commit time of its tenants (of any process),
    // so that commit times never go backwards along a tenant's commit order whichever process commits (one round trip).
    const ahead = readAhead
      ? async (hints: ReadAhead[], scope: readonly string[] | 'all') => {
          const last = store.lastCommitTime(scope === 'all' ? undefined : scope);
          await Promise.all([store.readAhead(hints), last.then((at) => ctx.commitClock.advanceTo(at))]);
        }
      : undefined;
    this.committer = new GroupCommitter(tx, () => store.forgetWriteState(), ahead);
    this.ctx = ctx;
  }

  /**
   * Commits through `store`, whose statements run on the connection `tx` controls; commit times continue from the
   * last one stored. With `readAhead` (PostgreSQL: each read is a round trip, and other processes may write), each
   * group first reads what its commands will read and the database's last commit time, in one go.
   */
  static async over(store: SqlStore, tx: TxControl, options: { clock?: Clock; ids?: IdGenerator; readAhead?: boolean } = {}): Promise<LocalWriter> {
    const { clock = systemClock, ids = uuidV7, readAhead = false } = options;
    return new LocalWriter(store, tx, {
      tx: store,
      ids,
      clock,
      commitClock: new CommitClock(clock, await store.lastCommitTime()),
      pepper: await store.secret(PEPPER_SECRET),
    }, readAhead);
  }

  run<K extends CommandName>(name: K, args: CommandArgs<K>): Promise<CommandResult<K>> {
    const weight = commandWeight(name, args);
    return this.committer.run(() => runCommand(this.ctx, name, args), {
      weight,
      share: commandShare(name, args, weight),
      lines: commandLines(name, args),
      ahead: commandReadAhead(name, args),
      scope: commandScope(name, args),
    });
  }

  close(): Promise<void> {
    return this.committer.flush(true);
  }
}
