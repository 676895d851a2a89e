// Numeric ids as the code host keeps them: an account (a user or an organization) gets a fresh id
// when a login nobody holds is first seen, keeps it when renamed, and a login given up and taken again
// names a new account with a new id; a repository keeps its id by name. Logins compare
// case-insensitively, like the code host's. Every start numbers from its own random base: `npm start`
// keeps the database across restarts, so ids repeated from an earlier run would make a new login look
// like a person signed in before.
const SPACING = 1024; // ids one start hands out before its range could meet another start's

function randomBase(): number {
  const [random] = crypto.getRandomValues(new Uint32Array(1));
  return 1_000_000_000 + random! * SPACING; // at most ~4.4e12: a safe integer and a bigint column value
}

export class Ids {
  private readonly repositories = new Map<string, number>();
  /** Lower-cased login -> the account holding it now. */
  private readonly accounts = new Map<string, number>();
  /** Account id -> its login as written. */
  private readonly logins = new Map<number, string>();
  private next = randomBase();
  private nextInstallation = randomBase();

  repository(name: string): number {
    const key = name.toLowerCase();
    let id = this.repositories.get(key);
    if (id === undefined) this.repositories.set(key, (id = this.next++));
    return id;
  }

  /** The account holding `login` now; a new account (a fresh id) when nobody does. */
  account(login: string): number {
    const id = this.accounts.get(login.toLowerCase());
    if (id !== undefined) return id;
    while (this.logins.has(this.next)) this.next++; // never an id a test registered (adopt)
    return this.hold(login, this.next++);
  }

  /** The account now holding `login`, without creating one. */
  holder(login: string): number | undefined {
    return this.accounts.get(login.toLowerCase());
  }

  loginOf(id: number): string | undefined {
    return this.logins.get(id);
  }

  /**
   * A test's own id for a login nobody holds (a test that delivers installation webhooks itself picks
   * its accounts' ids). False when the login is held by another account or the id by another login.
   */
  adopt(login: string, id: number): boolean {
    const held = this.accounts.get(login.toLowerCase());
    if (held !== undefined) return held === id;
    if (this.logins.has(id)) return false;
    this.hold(login, id);
    return true;
  }

  /** Renames an account: it keeps its id and `from` is free for anyone. False when `from` is nobody's or `to` is taken. */
  rename(from: string, to: string): number | null {
    const id = this.accounts.get(from.toLowerCase());
    const taken = this.accounts.get(to.toLowerCase());
    if (id === undefined || (taken !== undefined && taken !== id)) return null;
    this.accounts.delete(from.toLowerCase());
    return this.hold(to, id);
  }

  private hold(login: string, id: number): number {
    this.accounts.set(login.toLowerCase(), id);
    this.logins.set(id, login);
    return id;
  }

  /** A test's own id for a repository (a test that delivers installation webhooks itself picks its repositories' ids). */
  adoptRepository(name: string, id: number): void {
    this.repositories.set(name.toLowerCase(), id);
  }

  /** A new installation's id. */
  installation(): number {
    return this.nextInstallation++;
  }
}
