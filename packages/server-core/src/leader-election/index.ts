export { LeaderElectedControllers, type LeaderElectionConfig, type SingletonController } from './leader-elected-controllers.ts';
export { LEADER_ELECTION_DEFAULTS, LeaderElector, type LeaderElectorOptions } from './leader-elector.ts';
export { type LeaseLock, type LeaseRecord, storeLeaseLock } from './lease-lock.ts';
