// The workers a process may run beside the API (`--workers`): apart from the workers themselves, so that the CLI
// reads the list without loading them.
export const WORKER_NAMES = ['sweeper', 'webhooks', 'watchers'] as const;
export type WorkerName = (typeof WORKER_NAMES)[number];
