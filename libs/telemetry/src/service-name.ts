/**
 * The name a process reports in traces and metrics: OTEL_SERVICE_NAME if set, else `lode-<service>`
 * from SERVICE (the image's selector) or from the entry file `services/<service>/src/main.ts`.
 */
export function serviceName(env: NodeJS.ProcessEnv = process.env, entry: string | undefined = process.argv[1]): string {
  if (env.OTEL_SERVICE_NAME) return env.OTEL_SERVICE_NAME;
  const service = env.SERVICE ?? /services[/\\](\w+)[/\\]src[/\\]main\.ts$/.exec(entry ?? '')?.[1] ?? 'embedded';
  return `lode-${service}`;
}
