// Where the key lives while the user is signed in: this tab's sessionStorage (gone when the tab closes), never
// localStorage, a cookie or a URL.
const SLOT = 'ledger-console-key';

export const session = {
  key: (): string | null => {
    try {
      return sessionStorage.getItem(SLOT);
    } catch {
      return null;
    }
  },
  keep: (key: string): void => {
    try {
      sessionStorage.setItem(SLOT, key);
    } catch {
      // Storage refused (a private mode): the key stays in memory alone, for this page's life.
    }
  },
  forget: (): void => {
    try {
      sessionStorage.removeItem(SLOT);
    } catch {
      // Nothing kept.
    }
  },
};
