import { createWriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { stringifyJson } from '@kapi/apimachinery';
import type { AuditBackend } from './backend.ts';
import type { AuditEvent } from './types.ts';

/**
 * kube's log backend in json format (`--audit-log-path`, `--audit-log-format=json`): one audit.k8s.io/v1
 * Event per line. Writes to a stream it is given, or appends to a file it opens (and closes on shutdown).
 */
export class LogAuditBackend implements AuditBackend {
  readonly #out: Writable;
  readonly #owned: boolean;

  constructor(target: Writable | string) {
    this.#owned = typeof target === 'string';
    this.#out = typeof target === 'string' ? createWriteStream(target, { flags: 'a' }) : target;
  }

  processEvents(events: readonly AuditEvent[]): void {
    // stringifyJson: events carry request and response objects, which may nest deeper than JSON.stringify reaches.
    for (const ev of events) this.#out.write(`${stringifyJson(ev)}\n`);
  }

  async shutdown(): Promise<void> {
    if (!this.#owned || this.#out.writableFinished) return;
    await new Promise<void>((resolve, reject) => {
      this.#out.once('error', reject);
      this.#out.end(() => resolve());
    });
  }
}
