// The console's places are in the URL's fragment (#/accounts/<id>), so that the server serves one page for all of
// them and a link, a reload or the back button lands where it points. A fragment never carries the key.
import { useEffect, useState } from 'preact/hooks';

export interface Place {
  /** The path's parts: ['accounts', '<id>']. */
  parts: string[];
}

const placeOf = (hash: string): Place => ({ parts: hash.replace(/^#\/?/, '').split('?')[0]!.split('/').filter(Boolean).map(decodeURIComponent) });

/** The place the URL names now, kept up to date as it changes. */
export function usePlace(): Place {
  const [place, setPlace] = useState(() => placeOf(location.hash));
  useEffect(() => {
    const changed = () => setPlace(placeOf(location.hash));
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return place;
}

/** The link to a place: `href('accounts', id)`. */
export const href = (...parts: string[]): string => `#/${parts.map(encodeURIComponent).join('/')}`;
