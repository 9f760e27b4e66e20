import type { Contract } from '@lode/contracts';
import type { Bus, Handler } from './bus.ts';

/** One row of a service's table: a contract and the domain call that answers it. */
export interface Rpc {
  serveOn(bus: Bus): void;
}

/** Typed per row, so each handler sees its own contract's parsed request and must answer its reply. */
export function rpc<C extends Contract>(contract: C, handler: Handler<C>): Rpc {
  return { serveOn: (bus) => bus.serve(contract, handler) };
}

/** Serves every row of a service's table of contract → domain call. */
export function serveRpcs(bus: Bus, table: readonly Rpc[]): void {
  for (const row of table) row.serveOn(bus);
}
