// The store's lists are read lazily (AsyncIterable); tests read them whole.
export async function collect<T>(rows: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const row of rows) all.push(row);
  return all;
}

/** A list as the store hands it out, from an array. */
export async function* rowsOf<T>(rows: readonly T[]): AsyncGenerator<T> {
  yield* rows;
}
