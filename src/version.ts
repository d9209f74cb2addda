// The version of this build, shown by `ledger --version` and in the OpenAPI document.
export const VERSION = '0.1.0';
