import { randomUUID } from 'node:crypto';
import { commit } from '@lode/contracts';
import type { BulkVersion } from '@lode/testkit';
import { seedConfirmedVersions } from '@lode/system/testing';
import { JsonApi, type HttpClient } from './client.ts';
import { BENCH_WRITE_LIMIT, type Deployment } from './deployment.ts';
import { addAll, pushFiles } from './push.ts';

/** A project with one member's key, called through the harness's client. */
export interface BenchProject {
  projectId: string;
  userId: string;
  api: JsonApi;
}

/** Pushes through the public API when there is no direct access: files in flight at once. */
const API_SEED_IN_FLIGHT = 16;

/**
 * Data setup, always outside the timings: projects through the admin API; confirmed versions in one
 * SQL statement per table (and their objects written straight into storage) when the harness started
 * the deployment, or pushed through the public API against a deployment given by --url.
 */
export class Fixtures {
  readonly #deployment: Deployment;
  readonly #http: HttpClient;

  constructor(deployment: Deployment, http: HttpClient) {
    this.#deployment = deployment;
    this.#http = http;
  }

  get bulk(): boolean {
    return this.#deployment.direct !== undefined;
  }

  async project(): Promise<BenchProject> {
    const seeded = await this.#deployment.seeder.project({ writeRateLimit: BENCH_WRITE_LIMIT });
    const api = new JsonApi(this.#http, this.#deployment.baseUrl, { authorization: `Bearer ${seeded.key}`, 'x-device-id': seeded.deviceId });
    return { projectId: seeded.projectId, userId: seeded.userId, api };
  }

  /** `count` new files with a confirmed version 1; with `objects`, their bytes are in storage too. */
  async confirmed(project: BenchProject, count: number, options: { objects: boolean }): Promise<BulkVersion[]> {
    const prefix = `bench-${randomUUID().slice(0, 8)}`;
    const direct = this.#deployment.direct;
    if (!direct) {
      const files = Array.from({ length: count }, (_, i) => {
        const path = `${prefix}/file-${String(i).padStart(6, '0')}.bin`;
        return { path, bytes: Buffer.from(path) };
      });
      return pushFiles(project.api, this.#http, project.projectId, files, API_SEED_IN_FLIGHT);
    }
    const versions = await seedConfirmedVersions(direct.databaseUrl, project, count, prefix);
    if (options.objects) await direct.blobs(versions);
    return versions;
  }

  /** Commits `add` of every version, in as few commits as the 25,000-entry limit allows. */
  async commitAll(project: BenchProject, versions: readonly BulkVersion[]): Promise<void> {
    for (let i = 0; i < versions.length; i += commit.MAX_COMMIT_ENTRIES) {
      const part = versions.slice(i, i + commit.MAX_COMMIT_ENTRIES);
      await project.api.call('POST', `/api/v1/projects/${project.projectId}/commits`, 201, addAll(part, 'bench setup'));
    }
  }
}
