// How long a CLI token lives: a person renews it by signing in again with the device flow. Engine
// tokens made by a person have no lifetime (they run unattended); identity-exchange ones last 15
// minutes (worker/codehost/exchange.ts).
export const CLI_TOKEN_DAYS = 30;

export const cliTokenExpiry = (from = Date.now()) => new Date(from + CLI_TOKEN_DAYS * 24 * 3600 * 1000);
