export { expiredWatchEvent } from './end-watch.ts';
export { conflict, type FaultStatus, internalError, serviceUnavailable, statusFor, timeout, tooManyRequests } from './fault-status.ts';
export { Faults, type FaultsOptions } from './faults.ts';
export { matchesRequest, type RequestMatch, WRITE_VERBS } from './request-match.ts';
