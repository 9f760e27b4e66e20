export { SERVICE_NAMES, type ServiceName } from './names.ts';
export { SERVICE_ENTRY, SERVICES, serviceNamed, type RunningOf, type Service } from './registry.ts';
export { defineService, type RunningService, type ServiceDefinition, type ServiceRuntime } from './definition.ts';
export { startInProcess, type InProcessOptions, type InProcessServices } from './in-process.ts';
export { configure, settingsOf } from './settings.ts';
