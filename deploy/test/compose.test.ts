import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { IMAGE_SERVICES, isImageService } from '../services.ts';
import { interpolate, MissingVariables } from './compose-interpolation.ts';
import { DEPLOYED_SERVICES, REPO_ROOT } from './repo.ts';

const COMPOSE_DIR = path.join(REPO_ROOT, 'deploy');

/** The secrets an operator must set: without any of them, compose refuses to start. */
const SECRETS = {
  LODE_ADMIN_TOKEN: 'test-admin-token-0123456789abcdef',
  LODE_CURSOR_SECRET: 'test-cursor-secret-0123456789abcdef0123456789',
  LODE_SECRETS_KEY: 'dGVzdC1zZWNyZXRzLWtleS0wMTIzNDU2Nzg5YWJjZGU=',
  MINIO_ROOT_USER: 'test-minio-user',
  MINIO_ROOT_PASSWORD: 'test-minio-password-0123456789',
};

/** The file as compose reads it once the environment is interpolated, YAML merge keys (<<) resolved. */
function render(env: Record<string, string | undefined>): any {
  return parse(interpolate(readFileSync(path.join(COMPOSE_DIR, 'docker-compose.yml'), 'utf8'), env), { merge: true });
}

/** depends_on in either of compose's forms: a list of names, or a map of name to condition. */
function dependencies(service: any): Record<string, string> {
  const dependsOn = service.depends_on ?? {};
  if (Array.isArray(dependsOn)) return Object.fromEntries(dependsOn.map((name: string) => [name, 'service_started']));
  return Object.fromEntries(Object.entries(dependsOn).map(([name, spec]: [string, any]) => [name, spec?.condition ?? 'service_started']));
}

describe('deploy/docker-compose.yml', () => {
  let services: Record<string, any>;
  let lode: [string, any][];
  beforeAll(() => {
    services = render(SECRETS).services;
    lode = Object.entries(services).filter(([, s]) => s.environment?.SERVICE !== undefined);
  });

  it('runs every SERVICE the image accepts, once, and nothing it does not', () => {
    const names = lode.map(([, s]) => s.environment.SERVICE as string);
    for (const name of names) expect(isImageService(name), name).toBe(true);
    expect(names.sort()).toEqual([...IMAGE_SERVICES].sort());
  });

  it('builds every Lode container from deploy/Dockerfile, as the one local image', () => {
    for (const [name, service] of lode) {
      expect(service.image, name).toBe('lode:dev');
      expect(service.build, name).toEqual({ context: '..', dockerfile: 'deploy/Dockerfile' });
      expect(existsSync(path.resolve(COMPOSE_DIR, service.build.context, service.build.dockerfile)), name).toBe(true);
      expect(service.read_only, name).toBe(true);
    }
  });

  it('names only defined services in depends_on, and every other container has an image', () => {
    for (const [name, service] of Object.entries(services)) {
      for (const dependency of Object.keys(dependencies(service))) expect(Object.keys(services), `${name} depends on ${dependency}`).toContain(dependency);
      expect(service.image ?? service.build, name).toBeDefined();
    }
  });

  it('starts services after the migration job and NATS, and the gateway after every service is ready', () => {
    for (const name of DEPLOYED_SERVICES.filter((s) => s !== 'gateway')) {
      expect(dependencies(services[name])).toMatchObject({ migrate: 'service_completed_successfully', nats: 'service_healthy' });
      expect(services[name].healthcheck.test.join(' '), name).toMatch(/9464\/readyz/);
    }
    const gateway = dependencies(services.gateway);
    for (const name of DEPLOYED_SERVICES.filter((s) => s !== 'gateway')) expect(gateway[name], name).toBe('service_healthy');
    expect(services.gateway.healthcheck.test.join(' ')).toMatch(/8080\/readyz/);
    expect(dependencies(services.migrate)).toMatchObject({ postgres: 'service_healthy' });
  });

  it('gives every service the database and the gateway none: its keys and orgs are the identity service’s', () => {
    for (const name of DEPLOYED_SERVICES.filter((s) => s !== 'gateway')) expect(services[name].environment.DATABASE_URL, name).toMatch(/^postgres:\/\//);
    expect(services.migrate.environment.DATABASE_URL).toMatch(/^postgres:\/\//);
    expect(services.gateway.environment).not.toHaveProperty('DATABASE_URL');
  });

  it('creates the bucket before the services that sign URLs for it start', () => {
    expect(services['minio-init'].command.join(' ')).toMatch(/mc mb --ignore-existing local\/lode\b/);
    for (const name of ['upload', 'commit']) {
      expect(services[name].environment.S3_BUCKET).toBe('lode');
      expect(dependencies(services[name])['minio-init']).toBe('service_completed_successfully');
    }
  });

  it('mounts only configuration files that exist, and the collector exports to a service that exists', () => {
    const mounts = Object.values(services)
      .flatMap((s) => (s.volumes ?? []) as string[])
      .filter((v) => v.startsWith('.'));
    expect(mounts.length).toBeGreaterThan(0);
    for (const mount of mounts) expect(existsSync(path.resolve(COMPOSE_DIR, mount.split(':')[0])), mount).toBe(true);

    const collector = parse(readFileSync(path.join(COMPOSE_DIR, 'otel-collector.yaml'), 'utf8'));
    for (const exporter of Object.values<{ endpoint: string }>(collector.exporters)) {
      expect(Object.keys(services)).toContain(exporter.endpoint.split(':')[0]);
    }
    for (const [name, service] of lode) {
      expect(service.environment.OTEL_EXPORTER_OTLP_ENDPOINT, name).toMatch(/^http:\/\/otel-collector:4318$/);
    }
  });

  it('refuses to start while any secret is unset or empty, naming it', () => {
    expect(() => render({})).toThrow(MissingVariables);
    for (const name of Object.keys(SECRETS)) {
      for (const value of [undefined, '']) {
        let missing: string[] = [];
        try {
          render({ ...SECRETS, [name]: value });
        } catch (error) {
          if (!(error instanceof MissingVariables)) throw error;
          missing = [...new Set(error.missing.map((m) => m.name))];
          expect(
            error.missing.every((m) => m.message.length > 0),
            'each refusal says what to set',
          ).toBe(true);
        }
        expect(missing, `${name}=${String(value)}`).toEqual([name]);
      }
    }
  });

  it('hands every container the secrets it was given, and holds no credential of its own', () => {
    for (const [name, service] of lode) {
      expect(service.environment.LODE_ADMIN_TOKEN, name).toBe(SECRETS.LODE_ADMIN_TOKEN);
      expect(service.environment.LODE_CURSOR_SECRET, name).toBe(SECRETS.LODE_CURSOR_SECRET);
      expect(service.environment.S3_ACCESS_KEY_ID, name).toBe(SECRETS.MINIO_ROOT_USER);
      expect(service.environment.S3_SECRET_ACCESS_KEY, name).toBe(SECRETS.MINIO_ROOT_PASSWORD);
      // The key of the webhook secrets at rest goes to the one service that reads them.
      expect(service.environment.LODE_SECRETS_KEY, name).toBe(service.environment.SERVICE === 'webhooks' ? SECRETS.LODE_SECRETS_KEY : undefined);
    }
    for (const name of ['minio', 'minio-init']) {
      expect(services[name].environment, name).toMatchObject({ MINIO_ROOT_USER: SECRETS.MINIO_ROOT_USER, MINIO_ROOT_PASSWORD: SECRETS.MINIO_ROOT_PASSWORD });
    }
    const text = readFileSync(path.join(COMPOSE_DIR, 'docker-compose.yml'), 'utf8');
    expect(text).not.toMatch(/change-me|lode-dev-secret/);
  });

  it('publishes ports on the loopback interface unless LODE_BIND_ADDRESS says otherwise', () => {
    const published = (rendered: Record<string, any>) =>
      Object.entries(rendered).flatMap(([name, s]) => ((s.ports ?? []) as string[]).map((port) => [name, String(port)]));
    const byDefault = published(services);
    expect(byDefault.map(([name]) => name)).toContain('gateway');
    for (const [name, port] of byDefault) expect(port, name).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
    const gateway = published(render({ ...SECRETS, LODE_BIND_ADDRESS: '0.0.0.0' }).services).filter(([name]) => name === 'gateway');
    expect(gateway).toEqual([['gateway', '0.0.0.0:8080:8080']]);
  });
});
