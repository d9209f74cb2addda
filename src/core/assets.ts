// The assets the ledger keeps and the places each is kept at: the one table of scales, read by money (core/money.ts)
// and by the console, which shows amounts at these places without loading the ledger's decimal arithmetic.
export const fiatCurrencies = ['BRL', 'USD', 'MXN', 'EUR'] as const;
export const tokens = ['USDC', 'USDT', 'BRZ', 'PYUSD'] as const;

export type FiatCurrency = (typeof fiatCurrencies)[number];
export type Token = (typeof tokens)[number];
export type Asset = FiatCurrency | Token;

const scaleByAsset: Record<Asset, number> = {
  BRL: 2,
  USD: 2,
  MXN: 2,
  EUR: 2,
  USDC: 6,
  USDT: 6,
  PYUSD: 6,
  BRZ: 18,
};

export const scaleOf = (asset: Asset): number => scaleByAsset[asset];

/** The finest scale any asset has: an amount with more places than this is one no asset can take. */
export const FINEST_SCALE = Math.max(...Object.values(scaleByAsset));

export const isAsset = (name: string): name is Asset => Object.hasOwn(scaleByAsset, name);

export const isFiat = (asset: string): asset is FiatCurrency => (fiatCurrencies as readonly string[]).includes(asset);
