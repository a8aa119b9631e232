/**
 * What server-side apply costs a client on MemoryStorage (the harshest case: the write itself costs least), the rows
 * of managed-fields-writes.ts. Run: `npm run bench` in packages/server-core.
 */
import { MemoryStorage } from '@kapi/storage';
import { runManagedFieldsBench } from './managed-fields-writes.ts';

await runManagedFieldsBench('MemoryStorage', () => new MemoryStorage({ compaction: false }));
process.exit(0);
