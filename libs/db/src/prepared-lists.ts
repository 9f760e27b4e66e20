import type { NamedStatement } from './database.ts';

/**
 * A statement taking a list runs prepared only for lists up to this long: parsing and planning a few
 * CTEs cost more than their work on a few rows. A longer list is planned for itself at every call:
 * after a run of short lists Postgres keeps one generic plan for a prepared statement, and the plan
 * that suits a few rows took a 25,000-entry commit past the statement timeout.
 */
export const PREPARED_MAX_LIST = 16;

/** `statement` prepared for a list of `length`, or its text alone for a longer one. */
export const preparedForList = (statement: NamedStatement, length: number): NamedStatement | string =>
  length <= PREPARED_MAX_LIST ? statement : statement.text;
