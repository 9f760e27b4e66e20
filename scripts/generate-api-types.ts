// Writes each client's API types from the gateway's OpenAPI document: `npm run generate:api-types`.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { API_TYPES_FILES, renderApiTypes } from './api-types.ts';

const repoRoot = path.resolve(import.meta.dirname, '..');
const source = await renderApiTypes();
for (const file of API_TYPES_FILES) {
  const target = path.join(repoRoot, file);
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(target, source);
  console.log(`wrote ${file}`);
}
