// How a long-running command (serve, watch, webhooks send) ends: on SIGINT or SIGTERM it drains, then the command
// exits 0. Kept apart from the server so that a command loads the server only when it runs it.
import type { Logger } from '../core/ports.js';

/** Runs until SIGINT or SIGTERM, then drains and resolves; the caller exits 0. SIGHUP reads the TLS files again. */
export function untilSignal(running: { close(): Promise<void>; reload?: () => void; inFlight?: () => number }, log: Logger): Promise<void> {
  return new Promise((resolve) => {
    const stop = (signal: string) => {
      const handlers = running.inFlight?.();
      log(`${signal} received: draining ${handlers === undefined ? 'in-flight work' : `${handlers} in-flight request${handlers === 1 ? '' : 's'}`}`);
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      process.off('SIGHUP', onHup);
      void running.close().then(resolve);
    };
    const onInt = () => stop('SIGINT');
    const onTerm = () => stop('SIGTERM');
    const onHup = () => (running.reload ? running.reload() : log('SIGHUP: nothing to reload'));
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
    process.on('SIGHUP', onHup);
  });
}
