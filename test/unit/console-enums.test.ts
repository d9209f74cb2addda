// The console's filter values (src/console/enums.ts) are the API's own.
import { expect, it } from 'vitest';
import * as consoleEnums from '../../src/console/enums.js';
import { accountTypes } from '../../src/core/types.js';
import { fiatCurrencies } from '../../src/core/money.js';
import { holdStatuses } from '../../src/core/hold.js';
import { settlementStatuses } from '../../src/core/settlement.js';
import { historyIntervals } from '../../src/core/report.js';

it("the console's filters offer the values the API takes", () => {
  expect(consoleEnums.ACCOUNT_TYPES).toEqual(accountTypes);
  expect(consoleEnums.FIAT_CURRENCIES).toEqual(fiatCurrencies);
  expect(consoleEnums.HOLD_STATUSES).toEqual(holdStatuses);
  expect(consoleEnums.SETTLEMENT_STATUSES).toEqual(settlementStatuses);
  expect(consoleEnums.HISTORY_INTERVALS).toEqual(historyIntervals);
});
