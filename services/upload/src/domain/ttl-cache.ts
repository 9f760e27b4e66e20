/**
 * Values read from elsewhere (the database, another service), each trusted for `ttlMs` from the moment
 * its read began, so nothing is served older than that. At `maxEntries` the next store empties the
 * cache first: memory stays bounded whatever the number of keys, and the keys in use are read again.
 */
export class TtlCache<K, V> {
  readonly #entries = new Map<K, { value: V; until: number }>();
  readonly #ttlMs: number;
  readonly #maxEntries: number;

  constructor(options: { ttlMs: number; maxEntries: number }) {
    this.#ttlMs = options.ttlMs;
    this.#maxEntries = options.maxEntries;
  }

  /** The key's value, from the cache while it is trusted, else loaded and kept. */
  async read(key: K, load: (key: K) => Promise<V>): Promise<V> {
    const now = Date.now();
    const cached = this.#entries.get(key);
    if (cached && cached.until > now) return cached.value;
    const value = await load(key);
    this.#store(key, value, now);
    return value;
  }

  /** Keeps a value just read. */
  set(key: K, value: V): void {
    this.#store(key, value, Date.now());
  }

  /** Forgets the key: its next read loads it (a value just changed here). */
  delete(key: K): void {
    this.#entries.delete(key);
  }

  #store(key: K, value: V, readAt: number): void {
    if (this.#entries.size >= this.#maxEntries) this.#entries.clear();
    this.#entries.set(key, { value, until: readAt + this.#ttlMs });
  }
}
