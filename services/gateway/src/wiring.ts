import { SERVICE_NAMES } from '@lode/bus';

/** Services behind the gateway's routes, every one of the system's; /readyz pings each over the bus. */
export const PROJECT_SERVICES = SERVICE_NAMES;
