import { errors } from '@lode/errors';
import type { CursorCodec } from '@lode/db';

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

export interface PageQuery {
  cursor?: string | undefined;
  limit: number;
}

/** The admin lists' keyset pages, behind signed cursors. */
export class Pager {
  readonly #cursors: CursorCodec;

  constructor(cursors: CursorCodec) {
    this.#cursors = cursors;
  }

  /** Runs a keyset list: fetch one row more than asked to know whether another page exists. */
  async page<R, V>(
    list: string,
    query: PageQuery,
    fetch: (after: string[] | undefined, limit: number) => Promise<R[]>,
    positionOf: (row: R) => string[],
    toView: (row: R) => V,
  ): Promise<Page<V>> {
    // A cursor names its list, so one list's cursor can never be replayed against another's keys.
    const decoded = query.cursor ? this.#cursors.decode(query.cursor).map(String) : undefined;
    if (decoded && decoded[0] !== list) throw errors.validation('Invalid cursor');
    const after = decoded?.slice(1);
    const rows = await fetch(after, query.limit + 1);
    const data = rows.slice(0, query.limit);
    const last = data.at(-1);
    return {
      data: data.map(toView),
      nextCursor: rows.length > query.limit && last ? this.#cursors.encode([list, ...positionOf(last)]) : null,
    };
  }
}
