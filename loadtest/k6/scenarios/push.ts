import { randomContent } from '../lib/content.ts';
import { intEnv } from '../lib/env.ts';
import { randomHex } from '../lib/ids.ts';
import { defineFlow } from '../lib/flow.ts';
import { range } from '../lib/lists.ts';
import { flowDuration } from '../lib/outcome.ts';
import { pushFiles } from '../lib/push.ts';

// An artist saving work: FILES_PER_PUSH new files of FILE_SIZE random bytes each (never
// deduplicated, so every byte goes to storage), initiate-batch → PUT → confirm → commit.

const FILES = intEnv('FILES_PER_PUSH', 5, 1, 25000);
const SIZE = intEnv('FILE_SIZE', 4096, 0, 5 * 1024 ** 3);

export const pushFlow = defineFlow({
  name: 'push',
  steps: ['initiate-batch', 'put', 'confirm', 'commit'],
  budget: { rate: 5, requestP95Ms: 500, flowP95Ms: 2000 },
  seed: () => null,
  iterate: (api) => {
    const started = Date.now();
    // The random part keeps paths unique however k6 numbers VUs and iterations across scenarios.
    const dir = `k6/push/vu${__VU}/it${__ITER}-${randomHex(4)}`;
    const files = range(FILES).map((i) => ({ path: `${dir}/asset-${i}.bin`, content: randomContent(SIZE) }));
    const pushed = pushFiles(api, files, { message: `k6 push ${dir}` });
    if (pushed.outcome === 'ok') flowDuration.add(Date.now() - started, { flow: api.flow });
  },
});
