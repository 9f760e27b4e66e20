import { plugins } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { PluginService } from '../domain/plugin-service.ts';

/** Shared plugins' four RPCs (docs/api.md, Plugins): list, versions, initiate and confirm a publish. */
export function servePlugins(bus: Bus, service: PluginService): void {
  bus.serve(plugins.list, ({ actor, cursor, limit }) => service.list(actor, cursor, limit));
  bus.serve(plugins.listVersions, ({ actor, name, cursor, limit }) => service.listVersions(actor, name, cursor, limit));
  bus.serve(plugins.initiate, ({ actor, name, ...body }) => service.initiate(actor, name, body));
  bus.serve(plugins.confirm, ({ actor, name, ...body }) => service.confirm(actor, name, body));
}
