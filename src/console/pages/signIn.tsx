// Signing in: the key is checked against the server (GET /api/v1/api-keys/current), which says what it may do.
import { useState } from 'preact/hooks';
import { ApiError, signIn, type KeyInfo } from '../api.js';

export function SignIn({ notice, onSignedIn }: { notice: string | null; onSignedIn: (key: string, info: KeyInfo) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(notice);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const trimmed = key.trim();
      onSignedIn(trimmed, await signIn(trimmed));
    } catch (e) {
      setError(e instanceof ApiError ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="sign-in">
      <h1>ledger console</h1>
      <p>Sign in with an API key of your tenant. The console does only what the key's scopes allow, through the same API a script uses.</p>
      <form onSubmit={submit}>
        <label for="api-key">API key</label>
        <input id="api-key" name="api-key" type="password" autoComplete="off" spellcheck={false} required value={key} onInput={(e) => setKey(e.currentTarget.value)} placeholder="sk_live_…" />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <p class="hint">
        The key stays in this tab's session storage until you sign out or close the tab. Make one with <code>ledger keys create --tenant &lt;id&gt; --scopes ACCOUNTS_READ,TRANSACTIONS_READ --json</code>.
      </p>
    </main>
  );
}
