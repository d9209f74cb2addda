// Runs the checkpoint thread beside the server's writer thread.
import type { Worker } from 'node:worker_threads';
import { spawnStoreThread } from '../threads.js';

export class Checkpointer {
  private constructor(
    private readonly worker: Worker,
    /** The checkpoint connection's journal mode and synchronous level, as it reported them. */
    readonly durability: string,
  ) {}

  static start(dbPath: string): Promise<Checkpointer> {
    const worker = spawnStoreThread('checkpoint-thread', { dbPath });
    return new Promise((resolve, reject) => {
      worker.once('message', (message: { durability: string }) => {
        worker.off('error', reject);
        resolve(new Checkpointer(worker, message.durability));
      });
      worker.once('error', reject);
    });
  }

  /** A last checkpoint, then the thread ends. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.worker.once('exit', () => resolve());
      this.worker.postMessage('close');
    });
  }
}
