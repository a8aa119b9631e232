import { describe, expect, it } from 'vitest';
import { LeaseManager } from './lease-manager.ts';

function setup(opts: { maxAttachedKeys?: number; reuseDurationSeconds?: number } = {}) {
  let now = 1_000_000;
  const grants: number[] = [];
  const leases = new LeaseManager({
    ...opts,
    now: () => now,
    grant: async (ttl) => {
      grants.push(ttl);
      return grants.length;
    },
  });
  return { leases, grants, advance: (ms: number) => (now += ms) };
}

describe('LeaseManager', () => {
  it('gives short TTLs a fresh lease of exactly that TTL every time', async () => {
    const { leases, grants } = setup();
    expect(await leases.leaseFor(1)).toBe(1);
    expect(await leases.leaseFor(1)).toBe(2);
    expect(await leases.leaseFor(10)).toBe(3);
    expect(grants).toEqual([1, 1, 10]);
  });

  it('shares a lease between keys whose TTLs end within 5% of each other (at most 60 s)', async () => {
    const { leases, grants, advance } = setup();
    expect(await leases.leaseFor(3600)).toBe(1);
    expect(grants).toEqual([3600 + 60]);
    advance(30_000);
    expect(await leases.leaseFor(3600)).toBe(1);
    advance(31_000);
    // The shared lease would now end before the new key's TTL.
    expect(await leases.leaseFor(3600)).toBe(2);
    expect(await leases.leaseFor(100)).toBe(3);
    expect(grants).toEqual([3660, 3660, 105]);
  });

  it('does not reuse a lease that outlives a shorter TTL by more than the reuse window', async () => {
    const { leases } = setup();
    expect(await leases.leaseFor(3600)).toBe(1);
    expect(await leases.leaseFor(600)).toBe(2);
  });

  it('caps the keys on one lease and honours a smaller reuse window', async () => {
    const { leases, grants } = setup({ maxAttachedKeys: 2, reuseDurationSeconds: 10 });
    expect(await leases.leaseFor(1000)).toBe(1);
    expect(await leases.leaseFor(1000)).toBe(1);
    expect(await leases.leaseFor(1000)).toBe(2);
    expect(grants).toEqual([1010, 1010]);
  });
});
