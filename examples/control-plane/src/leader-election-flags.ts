import { LEADER_ELECTION_DEFAULTS, type LeaderElectionConfig } from '@kapi/server-core';
import type { FlagValues } from './flag-values.ts';
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

export type LeaderElectionFlagValues = FlagValues<typeof LEADER_ELECTION_FLAGS>;

/** A Go duration (`500ms`, `15s`, `1m30s`) given to `--flag`, read by token-flags' parseGoDuration. */
export function parseDuration(flag: string, value: string): number {
  try {
    return parseGoDuration(value);
  } catch {
    throw new Error(`--${flag} must be a duration such as 15s, not ${JSON.stringify(value)}`);
  }
}

/** Each timing flag and the option it sets. */
const TIMING_FLAGS = [
  ['leader-elect-lease-duration', 'leaseDurationMs'],
  ['leader-elect-renew-deadline', 'renewDeadlineMs'],
  ['leader-elect-retry-period', 'retryPeriodMs'],
] as const;

/** The timings the flags give (identity aside); undefined when leader election is off. */
export function leaderElectionFromFlags(
  values: LeaderElectionFlagValues,
  workers: number,
): Omit<LeaderElectionConfig, 'identity'> | undefined {
  if (!values['leader-elect'] && workers <= 1) return undefined;
  const config: Omit<LeaderElectionConfig, 'identity'> = {};
  for (const [flag, key] of TIMING_FLAGS) {
    const v = values[flag];
    if (v !== undefined) config[key] = parseDuration(flag, v);
  }
  const { leaseDurationMs, renewDeadlineMs } = { ...LEADER_ELECTION_DEFAULTS, ...config };
  if (renewDeadlineMs >= leaseDurationMs) throw new Error('--leader-elect-renew-deadline must be less than --leader-elect-lease-duration');
  return config;
}
