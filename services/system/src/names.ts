/**
 * The services behind the bus, by name alone (the list lives in libs/bus, where the gateway reads it
 * too): what the image's entry point and the deploy checks import without loading any service's
 * code. Each has its definition in registry.ts, which the compiler holds to exactly this list.
 */
export { SERVICE_NAMES, type ServiceName } from '@lode/bus/service-names';
