import { expect, it } from 'vitest';
import { leaderElectionFromFlags, parseDuration } from './leader-election-flags.ts';

it('reads Go durations as kube flags are given', () => {
  expect(parseDuration('x', '15s')).toBe(15_000);
  expect(parseDuration('x', '100ms')).toBe(100);
  expect(parseDuration('x', '1m30s')).toBe(90_000);
  expect(() => parseDuration('leader-elect-lease-duration', '15')).toThrow(
    '--leader-elect-lease-duration must be a duration such as 15s, not "15"',
  );
});

it('is off for one process unless --leader-elect, on with several workers, and checks the renew deadline', () => {
  expect(leaderElectionFromFlags({}, 1)).toBeUndefined();
  expect(leaderElectionFromFlags({ 'leader-elect': true }, 1)).toEqual({});
  expect(leaderElectionFromFlags({ 'leader-elect-lease-duration': '2s', 'leader-elect-renew-deadline': '1s' }, 2)).toEqual({
    leaseDurationMs: 2000,
    renewDeadlineMs: 1000,
  });
  expect(() => leaderElectionFromFlags({ 'leader-elect': true, 'leader-elect-lease-duration': '5s' }, 1)).toThrow(
    '--leader-elect-renew-deadline must be less than --leader-elect-lease-duration',
  );
});
