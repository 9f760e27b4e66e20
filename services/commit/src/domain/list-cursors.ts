import { errors } from '@lode/errors';
import type { CursorCodec } from '@lode/db';

type Part = string | number;

/**
 * Cursors of the lists (log, commit files, tree, branches): each names its list (kind, project and
 * filters) before the position, so a cursor of one list cannot page through another (400).
 */
export class ListCursors {
  readonly #codec: CursorCodec;

  constructor(codec: CursorCodec) {
    this.#codec = codec;
  }

  encode(scope: readonly Part[], position: readonly Part[]): string {
    return this.#codec.encode([...scope, ...position]);
  }

  /** The position, whose parts have the types given; 400 for a cursor of another list or shape. */
  decode<const T extends readonly ('string' | 'number')[]>(
    cursor: string,
    scope: readonly Part[],
    types: T,
  ): { [K in keyof T]: T[K] extends 'string' ? string : number } {
    const parts = this.#codec.decode(cursor);
    const position = parts.slice(scope.length);
    const fits =
      parts.length === scope.length + types.length && scope.every((part, i) => parts[i] === part) && types.every((type, i) => typeof position[i] === type);
    if (!fits) throw errors.validation('Invalid cursor');
    return position as { [K in keyof T]: T[K] extends 'string' ? string : number };
  }
}
