import { z } from 'zod';
import { ConfigError } from '@lode/config';
import type { RunningService, ServiceDefinition, ServiceRuntime } from './definition.ts';

type Environment = Record<string, string | undefined>;

/** Every setting the given services read, as one shape: a process hosting them all checks them in one pass. */
export function settingsOf(services: readonly ServiceDefinition[]): ServiceDefinition['settings'] {
  return Object.assign({}, ...services.map((service) => service.settings)) as ServiceDefinition['settings'];
}

export interface ConfiguredService<N extends string, R extends RunningService> {
  name: N;
  schema: string;
  start(runtime: ServiceRuntime): Promise<R>;
}

/**
 * Reads each service's settings from the environment; every bad variable of every service is
 * reported at once (ConfigError), as a lone process reports its own.
 */
export function configure<N extends string, R extends RunningService>(
  services: readonly ServiceDefinition<N, ServiceDefinition['settings'], R>[],
  environment: Environment,
): ConfiguredService<N, R>[] {
  const problems = new Set<string>();
  const configured: ConfiguredService<N, R>[] = [];
  for (const service of services) {
    const parsed = z.object(service.settings).safeParse(environment);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) problems.add(`${issue.path.join('.')}: ${issue.message}`);
      continue;
    }
    configured.push({ name: service.name, schema: service.schema, start: (runtime) => service.start(runtime, parsed.data) });
  }
  if (problems.size > 0) throw new ConfigError([...problems]);
  return configured;
}
