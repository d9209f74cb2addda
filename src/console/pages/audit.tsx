// Audit: the whole log read from the export as it streams in and its chain verified in the browser (Web Crypto over
// core/auditChain.ts's canonical text, as `ledger audit verify` hashes it), and the log saved as the export's NDJSON.
import { useState } from 'preact/hooks';
import { ChainWalk, walkLine, type ChainBreak } from '../../core/auditChain.js';
import { textLines, withQuery, type Api } from '../api.js';
import { ErrorNote, ListPage, useSigned } from '../ui.js';

/** The whole log: from the epoch to a minute from now (the end is exclusive; no record is written in the future). */
const wholeLog = () => withQuery('/api/v1/compliance/audit-export', { from: '1970-01-01T00:00:00.000Z', to: new Date(Date.now() + 60_000).toISOString() });

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

type Outcome = { ok: true; count: number } | ({ ok: false; count: number } & ChainBreak);

/** How often the count of records checked is shown while a verification runs. */
const PROGRESS_EVERY = 500;

/** Walks the export's lines as they arrive; `onCount` hears how many records were checked so far. */
async function verifyChain(api: Api, onCount: (count: number) => void): Promise<Outcome> {
  const walk = new ChainWalk(true);
  for await (const line of textLines(await api.fetch(wholeLog()))) {
    if (line.trim() === '') continue;
    const broken = await walkLine(walk, line, sha256Hex);
    if (broken) return { ok: false, count: walk.count, ...broken };
    if (walk.count % PROGRESS_EVERY === 0) onCount(walk.count);
  }
  return { ok: true, count: walk.count };
}

/** Saves a file the browser already holds, under `name`. */
function save(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export const AuditPage = () => (
  <ListPage title="Audit" scope="COMPLIANCE_EXPORT" to="to read the audit log">
    <AuditChain />
  </ListPage>
);

function AuditChain() {
  const { api } = useSigned();
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [checked, setChecked] = useState<number | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState<'verify' | 'download' | null>(null);
  const secure = typeof crypto !== 'undefined' && crypto.subtle !== undefined;

  const verify = async () => {
    setBusy('verify');
    setOutcome(null);
    setError(null);
    setChecked(0);
    try {
      setOutcome(await verifyChain(api, setChecked));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(null);
      setChecked(null);
    }
  };

  const download = async () => {
    setBusy('download');
    setError(null);
    try {
      const response = await api.fetch(wholeLog());
      save(await response.blob(), `audit-log-${new Date().toISOString().replace(/[:.]/g, '-')}.ndjson`);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(null);
    }
  };

  return (
    <>
      <p>
        Every audit record carries the hash of its content and of the record before it. Verifying reads the whole log and checks each hash here, in the browser, as{' '}
        <code>ledger audit verify</code> does.
      </p>
      <div class="actions">
        <button type="button" onClick={() => void verify()} disabled={busy !== null || !secure}>
          Verify chain
        </button>
        <button type="button" onClick={() => void download()} disabled={busy !== null}>
          Download audit log
        </button>
      </div>
      {!secure && <p class="hint">Verifying needs Web Crypto, which browsers give only to pages served over HTTPS or from localhost.</p>}
      <div role="status" class="verify-state">
        {busy === 'verify' && `Verifying… ${checked ?? 0} records checked`}
        {busy === 'download' && 'Preparing the download…'}
      </div>
      <ErrorNote error={error} />
      {outcome?.ok === true && (
        <p class="outcome ok" role="alert">
          <strong>Chain intact</strong>: {outcome.count} records verified.
        </p>
      )}
      {outcome?.ok === false && (
        <div class="outcome broken" role="alert">
          <p>
            <strong>Chain broken</strong> at record <code>{outcome.id}</code> (number {outcome.position} in order): it {outcome.reason}.
          </p>
          <p>{outcome.count - 1} records before it were verified.</p>
        </div>
      )}
    </>
  );
}
