// The console's shell: the sign-in form until a key is accepted, then the navigation and the page the URL names.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { Api, ApiError, can, signIn, type KeyInfo } from './api.js';
import { session } from './session.js';
import { href, usePlace } from './route.js';
import { SignedIn } from './ui.js';
import type { Scope } from '../core/scopes.js';
import { SignIn } from './pages/signIn.js';
import { AccountPage, AccountsPage } from './pages/accounts.js';
import { TransactionPage, TransactionsPage } from './pages/transactions.js';
import { HoldPage, HoldsPage } from './pages/holds.js';
import { SettlementsPage } from './pages/settlements.js';
import { ReconciliationPage, StatementPage } from './pages/reconciliation.js';
import { EventsPage } from './pages/events.js';
import { ReportsPage } from './pages/reports.js';
import { AuditPage } from './pages/audit.js';

/** The navigation: each section with the scope that reads it; a section the key cannot read is not offered. */
const SECTIONS: ReadonlyArray<{ path: string; name: string; scope: Scope }> = [
  { path: 'accounts', name: 'Accounts', scope: 'ACCOUNTS_READ' },
  { path: 'transactions', name: 'Transactions', scope: 'TRANSACTIONS_READ' },
  { path: 'holds', name: 'Holds', scope: 'TRANSACTIONS_READ' },
  { path: 'settlements', name: 'Settlements', scope: 'TRANSACTIONS_READ' },
  { path: 'reconciliation', name: 'Reconciliation', scope: 'RECONCILIATION_READ' },
  { path: 'events', name: 'Events', scope: 'TRANSACTIONS_READ' },
  { path: 'reports', name: 'Reports', scope: 'ACCOUNTS_READ' },
  { path: 'audit', name: 'Audit', scope: 'COMPLIANCE_EXPORT' },
];

interface Signed {
  key: string;
  info: KeyInfo;
}

export function App() {
  const [signed, setSigned] = useState<Signed | null>(null);
  const [resuming, setResuming] = useState(() => session.key() !== null);
  const [notice, setNotice] = useState<string | null>(null);

  const signOut = (message: string | null) => {
    session.forget();
    setSigned(null);
    setNotice(message);
  };

  // A key kept by this tab (a reload): checked again before anything is shown.
  useEffect(() => {
    const key = session.key();
    if (key === null) return;
    signIn(key).then(
      (info) => setSigned({ key, info }),
      (error) => signOut(error instanceof ApiError ? error.message : null),
    ).finally(() => setResuming(false));
  }, []);

  if (resuming) {
    return (
      <main id="main">
        <p role="status">Signing in…</p>
      </main>
    );
  }
  if (!signed) {
    return (
      <SignIn
        notice={notice}
        onSignedIn={(key, info) => {
          session.keep(key);
          setNotice(null);
          setSigned({ key, info });
        }}
      />
    );
  }
  return <Console signed={signed} onSignOut={signOut} />;
}

/** How often an idle console asks whether its key still works: a key revoked meanwhile signs the user out. */
const KEY_CHECK_MS = 30_000;

function Console({ signed, onSignOut }: { signed: Signed; onSignOut: (message: string | null) => void }) {
  const api = useMemo(() => new Api(signed.key, (error) => onSignOut(error.message)), [signed.key]);
  useEffect(() => {
    // A 401 signs out (Api); anything else (the server restarting) is left for the next look.
    const timer = setInterval(() => api.json('/api/v1/api-keys/current').catch(() => {}), KEY_CHECK_MS);
    return () => clearInterval(timer);
  }, [api]);
  const context = useMemo(() => ({ api, key: signed.info }), [api, signed.info]);
  const place = usePlace();
  const first = SECTIONS.find((s) => can(signed.info, s.scope))?.path ?? 'accounts';
  const [section = first, id] = place.parts;
  return (
    <SignedIn.Provider value={context}>
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to the page
      </a>
      <header class="top">
        <span class="brand">ledger console</span>
        <nav aria-label="Sections">
          <ul>
            {SECTIONS.filter((s) => can(signed.info, s.scope)).map((s) => (
              <li key={s.path}>
                <a href={href(s.path)} aria-current={section === s.path ? 'page' : undefined}>
                  {s.name}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span>
            Key <code>{signed.info.prefix}</code>
          </span>
          <button type="button" onClick={() => onSignOut(null)}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {/* Keyed by its place: each address gets a page of its own, never the one before it with its state and its
            answers (another account's, shown under this address until this one's arrive). */}
        <Page key={place.parts.join('/')} section={section} id={id} />
      </main>
    </SignedIn.Provider>
  );
}

function Page({ section, id }: { section: string; id: string | undefined }) {
  switch (section) {
    case 'accounts':
      return id ? <AccountPage id={id} /> : <AccountsPage />;
    case 'transactions':
      return id ? <TransactionPage id={id} /> : <TransactionsPage />;
    case 'holds':
      return id ? <HoldPage id={id} /> : <HoldsPage />;
    case 'settlements':
      return <SettlementsPage />;
    case 'reconciliation':
      return id ? <StatementPage id={id} /> : <ReconciliationPage />;
    case 'events':
      return <EventsPage />;
    case 'reports':
      return <ReportsPage />;
    case 'audit':
      return <AuditPage />;
    default:
      return (
        <>
          <h1>Not found</h1>
          <p>
            There is no page here. Go to the <a href={href('accounts')}>accounts</a>.
          </p>
        </>
      );
  }
}
