// Long work in parts: between two, the event loop runs whatever else is ready (other requests on the HTTP thread).

/** Resolves once the event loop has run what was ready before it (I/O callbacks included). */
export const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));
