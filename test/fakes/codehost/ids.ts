// Stable numeric ids for names the fake has seen (accounts, repositories), as the code host keeps them.
// Names compare case-insensitively, like the code host's.
export class Ids {
  private readonly known = new Map<string, number>();
  private next = 7_000_000;

  of(kind: "account" | "repository", name: string): number {
    const key = `${kind}:${name.toLowerCase()}`;
    let id = this.known.get(key);
    if (id === undefined) this.known.set(key, (id = this.next++));
    return id;
  }
}
