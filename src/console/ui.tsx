// The pieces every page is made of: the signed-in key and its client, loading and paging, and how errors, empty
// lists, missing scopes, amounts and times are shown.
import { createContext, type ComponentChildren } from 'preact';
import { useCallback, useContext, useEffect, useRef, useState } from 'preact/hooks';
import { amountText, ApiError, can, type Api, type KeyInfo } from './api.js';
import type { Scope } from '../core/scopes.js';
import { href } from './route.js';
import { formatAmount } from './amounts.js';

export interface Signed {
  api: Api;
  key: KeyInfo;
}

export const SignedIn = createContext<Signed | null>(null);

/** The signed-in key and its client (every page is under the sign-in). */
export function useSigned(): Signed {
  const signed = useContext(SignedIn);
  if (!signed) throw new Error('used outside the signed-in console');
  return signed;
}

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload(): void;
}

/** What `load` answers, loaded again when `deps` change; a load overtaken by a newer one is dropped. */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  useEffect(() => {
    const abort = new AbortController();
    setState((s) => ({ ...s, loading: true, error: undefined }));
    load(abort.signal).then(
      (data) => !abort.signal.aborted && setState({ data, loading: false }),
      (error) => !abort.signal.aborted && setState({ error, loading: false }),
    );
    return () => abort.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, round]);
  return { data: state.data, error: state.error, loading: state.loading, reload: useCallback(() => setRound((r) => r + 1), []) };
}

export interface Paged<T> {
  items: T[];
  error: unknown;
  loading: boolean;
  more: boolean;
  loadMore(): void;
}

/**
 * Pages of no item followed at once, at most, before "Load more" is offered: a filtered page reads a bounded number of
 * rows, and may hold none while more follow (docs/api-decisions.md, Lists).
 */
const EMPTY_PAGES_FOLLOWED = 10;

/** A cursor-paged list: the first page when `deps` change, the next on loadMore; a page of no item is followed on. */
export function usePaged<T>(page: (cursor: string | undefined, signal: AbortSignal) => Promise<{ items: T[]; nextCursor: string | null }>, deps: unknown[]): Paged<T> {
  const [state, setState] = useState<{ items: T[]; cursor: string | null; error?: unknown; loading: boolean }>({ items: [], cursor: null, loading: true });
  const abort = useRef<AbortController | null>(null);
  const fetchPage = (cursor: string | undefined, keep: T[]) => {
    abort.current?.abort();
    const controller = (abort.current = new AbortController());
    setState({ items: keep, cursor: cursor ?? null, loading: true });
    const follow = async () => {
      let answer = await page(cursor, controller.signal);
      for (let followed = 0; answer.items.length === 0 && answer.nextCursor !== null && followed < EMPTY_PAGES_FOLLOWED; followed++) {
        answer = await page(answer.nextCursor, controller.signal);
      }
      return answer;
    };
    follow().then(
      (answer) => !controller.signal.aborted && setState({ items: [...keep, ...answer.items], cursor: answer.nextCursor, loading: false }),
      (error) => !controller.signal.aborted && setState({ items: keep, cursor: cursor ?? null, error, loading: false }),
    );
  };
  useEffect(() => {
    fetchPage(undefined, []);
    return () => abort.current?.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
  return {
    items: state.items,
    error: state.error,
    loading: state.loading,
    more: state.cursor !== null && !state.loading,
    loadMore: () => state.cursor !== null && fetchPage(state.cursor, state.items),
  };
}

export const Loading = ({ what = 'Loading' }: { what?: string }) => (
  <p class="loading" role="status">
    {what}…
  </p>
);

/** An error as the API gave it: its code and its message, and which fields it names. */
export function ErrorNote({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  const e = error instanceof ApiError ? error : new ApiError(0, 'ERROR', error instanceof Error ? error.message : String(error));
  return (
    <div class="error" role="alert">
      <strong>{e.code}</strong>
      {e.status > 0 ? ` (${e.status})` : ''}: {e.message}
      {e.details.length > 0 && (
        <ul>
          {e.details.map((d) => (
            <li key={d.path}>
              <code>{d.path}</code> {d.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export const Empty = ({ children }: { children: ComponentChildren }) => <p class="empty">{children}</p>;

/** Where a page or an action needs a scope the key lacks: says which, instead of a broken page. */
export const MissingScope = ({ scope, to }: { scope: Scope; to: string }) => (
  <p class="missing-scope" role="note">
    This key lacks the <code>{scope}</code> scope, which is needed {to}. Sign in with a key that has it.
  </p>
);

/** A page's body when the key has `scope`; else what is missing. */
export function NeedsScope({ scope, to, children }: { scope: Scope; to: string; children: ComponentChildren }) {
  const { key } = useSigned();
  return can(key, scope) ? <>{children}</> : <MissingScope scope={scope} to={to} />;
}

/**
 * An amount as an accountant reads it (amounts.ts: grouped, at its asset's places, every digit the API gave), in
 * tabular figures; with its asset named after it, unless `bare` (where a column or a heading names the asset).
 */
export const Amount = ({ value, asset, bare = false }: { value: unknown; asset: string; bare?: boolean }) => (
  <span class="amount">
    {formatAmount(amountText(value), asset)}
    {bare ? null : (
      <>
        {' '}
        <span class="asset">{asset}</span>
      </>
    )}
  </span>
);

/** An instant as the API gives it (UTC), written for people and saying it is UTC. */
export function Time({ at }: { at: string | null | undefined }) {
  if (!at) return <span class="none">—</span>;
  return <time dateTime={at}>{at.replace('T', ' ').replace(/Z$/, '')} UTC</time>;
}

/** A table that scrolls on its own when it is wider than the screen (the page never does), named by its caption. */
export function Table({ caption, head, children, numeric = [] }: { caption: string; head: string[]; children: ComponentChildren; numeric?: number[] }) {
  return (
    <div class="table-wrap" role="region" aria-label={caption} tabIndex={0}>
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {head.map((h, i) => (
              <th key={h} scope="col" class={numeric.includes(i) ? 'num' : undefined}>
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/**
 * A paged list: its table (`children`) once it has items, else, loaded without an error, what to do about none
 * (`empty`); then its footer.
 */
export function PagedList<T>({ paged, noun, empty, children }: { paged: Paged<T>; noun: string; empty: ComponentChildren; children: ComponentChildren }) {
  return (
    <>
      {paged.items.length > 0 ? children : !paged.loading && !paged.error && !paged.more ? <Empty>{empty}</Empty> : null}
      <PagedFooter paged={paged} noun={noun} />
    </>
  );
}

/** The end of a paged list: "Load more" while there is more, the error of the last page, a loading line. */
export function PagedFooter({ paged, noun }: { paged: Paged<unknown>; noun: string }) {
  return (
    <div class="paged-footer">
      <ErrorNote error={paged.error} />
      {paged.loading && <Loading what={`Loading ${noun}`} />}
      {paged.more && (
        <button type="button" onClick={paged.loadMore}>
          Load more
        </button>
      )}
    </div>
  );
}

/** A status filter over every status the list takes ("All" first). */
export function StatusFilter({ statuses, value, onChange, label }: { statuses: readonly string[]; value: string; onChange: (value: string) => void; label: string }) {
  return (
    <form class="filters" aria-label={label} onSubmit={(e) => e.preventDefault()}>
      <Choice label="Status" value={value} options={statuses} onChange={onChange} />
    </form>
  );
}

/** An id linked to its page: `<IdLink to="transactions" id={…} />`. */
export const IdLink = ({ to, id }: { to: string; id: string }) => (
  <a href={href(to, id)}>
    <code>{id}</code>
  </a>
);

/** A list page: its heading, then its body when the key has the scope that reads it (else what is missing). */
export const ListPage = ({ title, scope, to, children }: { title: string; scope: Scope; to: string; children: ComponentChildren }) => (
  <>
    <h1>{title}</h1>
    <NeedsScope scope={scope} to={to}>
      {children}
    </NeedsScope>
  </>
);

/**
 * A resource's page: its error (or the missing scope) under a heading, a loading line, then a link back to its list
 * (`title`s, the section's path) and `children` of it.
 */
export function DetailPage<T>({ title, scope, what, loaded, children }: { title: string; scope: Scope; what: string; loaded: Loaded<T>; children: (data: T) => ComponentChildren }) {
  if (loaded.error) {
    return (
      <ListPage title={title} scope={scope} to={`to read ${what}s`}>
        <ErrorNote error={loaded.error} />
      </ListPage>
    );
  }
  if (!loaded.data) return <Loading what={`Loading the ${what}`} />;
  return (
    <>
      <p class="crumbs">
        <a href={href(`${what}s`)}>{`${title}s`}</a>
      </p>
      {children(loaded.data)}
    </>
  );
}

/** A labelled select of `options`, with "All" (the empty value) first when `all`. */
export function Choice({ label, value, options, onChange, all = true }: { label: string; value: string; options: readonly string[]; onChange: (value: string) => void; all?: boolean }) {
  return (
    <label>
      {label}
      <select value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        {all && <option value="">All</option>}
        {options.map((o) => (
          <option key={o}>{o}</option>
        ))}
      </select>
    </label>
  );
}
