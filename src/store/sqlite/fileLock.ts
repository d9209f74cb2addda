// A lock between processes on one machine: SQLite's own lock on a small file beside the database, held in exclusive
// locking mode until released; the operating system releases it when the process ends, however it ends.
import type { SqliteDatabase } from './driver.js';
import { openSqlite } from './files.js';

export class FileLock {
  private constructor(private readonly db: SqliteDatabase) {}

  /** Takes the lock at `path` (creating the file, 0600), or answers null at once while another process holds it. */
  static tryTake(path: string): FileLock | null {
    const db = openSqlite(path);
    try {
      db.pragma('busy_timeout = 0');
      db.pragma('locking_mode = EXCLUSIVE');
      db.exec('BEGIN EXCLUSIVE');
      db.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL, since TEXT NOT NULL)');
      db.exec('DELETE FROM holder');
      db.prepare('INSERT INTO holder (pid, since) VALUES (?, ?)').run(process.pid, new Date().toISOString());
      db.exec('COMMIT');
      return new FileLock(db);
    } catch (error) {
      db.close();
      if ((error as { code?: string }).code === 'SQLITE_BUSY') return null;
      throw error;
    }
  }

  release(): void {
    if (this.db.open) this.db.close();
  }
}
