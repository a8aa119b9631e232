import { FakeClock } from '@kapi/apimachinery';
import { MemoryStorage } from '@kapi/storage';
import { runCacherConformance, runCacherDeepNestingCases, runCacherWatchCases } from './test-support/cacher-suites.ts';

// MemoryStorage keeps time on a fake clock (TTLs, its progress notifications); the Cacher runs on real time.
runCacherConformance('Cacher over MemoryStorage', () => {
  const clock = new FakeClock();
  return {
    storage: new MemoryStorage({ clock, progressNotifyIntervalMs: 100 }),
    resourcePrefix: '/registry/widgets',
    elapse: async (ms) => {
      clock.advance(ms);
      await new Promise((r) => setImmediate(r));
    },
  };
});

runCacherWatchCases('Cacher over MemoryStorage', () => ({ storage: new MemoryStorage(), resourcePrefix: '/registry/widgets' }));

runCacherDeepNestingCases('Cacher over MemoryStorage', () => ({ storage: new MemoryStorage(), resourcePrefix: '/registry/widgets' }));
