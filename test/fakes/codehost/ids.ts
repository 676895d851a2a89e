// Stable numeric ids for names the fake has seen (accounts, repositories), as the code host keeps them,
// and fresh installation ids. Names compare case-insensitively, like the code host's.
// Every start numbers from its own random base: `npm start` keeps the database across restarts, so
// ids repeated from an earlier run would make a new login look like a person signed in before.
const SPACING = 1024; // ids one start hands out before its range could meet another start's

function randomBase(): number {
  const [random] = crypto.getRandomValues(new Uint32Array(1));
  return 1_000_000_000 + random! * SPACING; // at most ~4.4e12: a safe integer and a bigint column value
}

export class Ids {
  private readonly known = new Map<string, number>();
  private next = randomBase();
  private nextInstallation = randomBase();

  of(kind: "account" | "repository", name: string): number {
    const key = `${kind}:${name.toLowerCase()}`;
    let id = this.known.get(key);
    if (id === undefined) this.known.set(key, (id = this.next++));
    return id;
  }

  /** Gives a name the id a test chose for it (before or after the fake first saw it). */
  pin(kind: "account" | "repository", name: string, id: number): void {
    this.known.set(`${kind}:${name.toLowerCase()}`, id);
  }

  /** A new installation's id. */
  installation(): number {
    return this.nextInstallation++;
  }
}
