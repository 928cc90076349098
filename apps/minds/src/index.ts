export { createMindsService, migrationsDir, DEFAULT_REGION, defaultMindBaseUrl, type MindsService, type MindsServiceConfig } from './service.js';
export { configFromEnv } from './config.js';
export { HttpAgentDirectory, type AgentDirectory, type AgentLookupContext, type AgentRecord } from './agents.js';
export { HostUnreachableError, type HostCapacity, type HostDriver, type HostObservation, type HostSpec } from './controller/host.js';
export { SimulatedHost, type SimulatedHostOptions } from './controller/simulated-host.js';
export { WorkListener, WORK_CHANNEL } from './controller/wake-ups.js';
export { CONTROLLER_DEFAULTS, MindsController, type ControllerOptions, type ControllerSettings } from './controller/controller.js';
export { deriveStatus } from './controller/state.js';
export { contextSha256 } from './canonical.js';
