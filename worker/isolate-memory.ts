// What an isolate remembers between requests, by key, up to a limit: past it the entry remembered
// longest ago goes first (a Map iterates in insertion order). Never an authorization: what is looked
// up here only picks a faster way to the same checks.
export interface IsolateMemory<K, V> {
  get(key: K): V | undefined;
  remember(key: K, value: V): void;
  forget(key: K): void;
}

export function isolateMemory<K, V>(limit: number): IsolateMemory<K, V> {
  const entries = new Map<K, V>();
  return {
    get: (key) => entries.get(key),
    remember(key, value) {
      if (entries.size >= limit && !entries.has(key)) entries.delete(entries.keys().next().value!);
      entries.set(key, value);
    },
    forget: (key) => void entries.delete(key),
  };
}
