import { commit, plugins } from '@lode/contracts';
import type { OperationGroup } from '../operation.ts';

const plugin = '/api/v1/projects/:projectId/plugins';
const params = { name: plugins.pluginName };

export const pluginOperations: OperationGroup = {
  tag: 'Plugins',
  description: "Shared plugins: a project's tools, versioned, published through the same presigned upload as files (docs/api.md, Plugins).",
  operations: [
    { method: 'get', path: plugin, summary: "The project's plugins", auth: 'key', query: commit.pageQuerySchema, reply: plugins.list.reply },
    { method: 'get', path: `${plugin}/:name/versions`, summary: "A plugin's versions", auth: 'key', params, query: commit.pageQuerySchema, reply: plugins.listVersions.reply },
    {
      method: 'post',
      path: `${plugin}/:name/versions/initiate`,
      summary: 'Reserve a plugin version and get its upload URL',
      auth: 'key',
      write: true,
      params,
      body: plugins.initiateBodySchema,
      reply: plugins.initiate.reply,
      errors: [409],
    },
    {
      method: 'post',
      path: `${plugin}/:name/versions/confirm`,
      summary: 'Publish an uploaded plugin version',
      auth: 'key',
      write: true,
      params,
      body: plugins.confirmBodySchema,
      status: 201,
      reply: plugins.confirm.reply,
      errors: [409, 422],
    },
  ],
};
