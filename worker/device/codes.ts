// The device flow's codes: the device code is a secret (only its hash is stored); the user code is
// short, typed by a person, from an alphabet without look-alike letters.
const USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ";

export function newUserCode(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return [...bytes].map((byte) => USER_CODE_ALPHABET[byte % USER_CODE_ALPHABET.length]).join("");
}

/** What a person typed, as stored: upper case, no separators. */
export const normalizeUserCode = (typed: string) => typed.toUpperCase().replace(/[^A-Z]/g, "");

export const displayUserCode = (code: string) => `${code.slice(0, 4)}-${code.slice(4)}`;
