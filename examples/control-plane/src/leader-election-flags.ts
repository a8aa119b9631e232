import type { LeaderElectionConfig } from '@kapi/server-core';
import { parseGoDuration } from './token-flags.ts';

/** kube-controller-manager's leader election flags. */
export const LEADER_ELECTION_FLAGS = {
  'leader-elect': { type: 'boolean' },
  'leader-elect-lease-duration': { type: 'string' },
  'leader-elect-renew-deadline': { type: 'string' },
  'leader-elect-retry-period': { type: 'string' },
} as const;

export const LEADER_ELECTION_USAGE = `[--leader-elect] [--leader-elect-lease-duration 15s] [--leader-elect-renew-deadline 10s] [--leader-elect-retry-period 2s]
    (on with --workers > 1: the namespace controller, garbage collector and quota controller run in one process at a time)`;

export type LeaderElectionFlagValues = { [K in keyof typeof LEADER_ELECTION_FLAGS]?: K extends 'leader-elect' ? boolean : string };

/** A Go duration (`500ms`, `15s`, `1m30s`) given to `--flag`, read by token-flags' parseGoDuration. */
export function parseDuration(flag: string, value: string): number {
  try {
    return parseGoDuration(value);
  } catch {
    throw new Error(`--${flag} must be a duration such as 15s, not ${JSON.stringify(value)}`);
  }
}

/** The timings the flags give (identity aside); undefined when leader election is off. */
export function leaderElectionFromFlags(
  values: LeaderElectionFlagValues,
  workers: number,
): Omit<LeaderElectionConfig, 'identity'> | undefined {
  if (!values['leader-elect'] && workers <= 1) return undefined;
  const ms = (flag: 'leader-elect-lease-duration' | 'leader-elect-renew-deadline' | 'leader-elect-retry-period') => {
    const v = values[flag];
    return v === undefined ? undefined : parseDuration(flag, v);
  };
  const leaseDurationMs = ms('leader-elect-lease-duration');
  const renewDeadlineMs = ms('leader-elect-renew-deadline');
  const retryPeriodMs = ms('leader-elect-retry-period');
  const config = {
    ...(leaseDurationMs !== undefined ? { leaseDurationMs } : {}),
    ...(renewDeadlineMs !== undefined ? { renewDeadlineMs } : {}),
    ...(retryPeriodMs !== undefined ? { retryPeriodMs } : {}),
  };
  if ((config.renewDeadlineMs ?? 10_000) >= (config.leaseDurationMs ?? 15_000))
    throw new Error('--leader-elect-renew-deadline must be less than --leader-elect-lease-duration');
  return config;
}
