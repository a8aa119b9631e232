import type { AckedWrite } from './config-map-writer.ts';
import type { ResumingWatcher } from './resuming-watcher.ts';

/**
 * Dev-only: the HA harness's verdicts. A write counts as lost when the final list does not show it (or a later write
 * of the same object). A watcher has a gap when an acknowledged write after its first list reached it neither as an
 * event nor through a relist after a 410 (a relist over (from, to] shows the object at that write's resourceVersion
 * or later), and a duplicate when it saw the same (name, resourceVersion) twice.
 */

export interface FinalState {
  readonly rv: bigint;
  readonly seq: number;
}

export interface ListFigures {
  /** Acknowledged writes the final list does not show. */
  lost: number;
  /** Objects whose final resourceVersion is not that of their last acknowledged write. */
  mismatched: number;
  samples: string[];
}

export function checkFinalList(finalItems: ReadonlyMap<string, FinalState>, acked: readonly AckedWrite[]): ListFigures {
  const last = new Map<string, AckedWrite>();
  for (const w of acked) if ((last.get(w.name)?.seq ?? -1) < w.seq) last.set(w.name, w);
  const figures: ListFigures = { lost: 0, mismatched: 0, samples: [] };
  for (const w of acked) {
    const item = finalItems.get(w.name);
    if (!item || item.seq < w.seq) {
      figures.lost++;
      if (figures.samples.length < 10)
        figures.samples.push(`lost ${w.name} seq ${w.seq} rv ${w.rv} (final: ${item ? `seq ${item.seq}` : 'absent'})`);
    }
  }
  for (const [name, w] of last) {
    const item = finalItems.get(name);
    if (item && item.rv !== w.rv) {
      figures.mismatched++;
      if (figures.samples.length < 10) figures.samples.push(`${name}: final rv ${item.rv}, last acknowledged ${w.rv}`);
    }
  }
  return figures;
}

export interface WatchFigures {
  /** Which server the watcher started on. */
  readonly server: string;
  events: number;
  /** Acknowledged writes after the first list that never reached the watcher. */
  gaps: number;
  /** Events seen twice. */
  duplicates: number;
  /** Events not above the one before. */
  outOfOrder: number;
  /** Events of no acknowledged write (or showing another write's content). */
  unknown: number;
  relists: number;
  resumes: number;
  errors: string;
  samples: string[];
}

/** What a watcher recorded (a ResumingWatcher's fields). */
export type WatchRecord = Pick<ResumingWatcher, 'events' | 'relists' | 'startRV' | 'lastRV' | 'outOfOrder' | 'resumes' | 'errors'>;

export function checkWatcher(server: string, w: WatchRecord, acked: readonly AckedWrite[]): WatchFigures {
  // An event must show the acknowledged write of its resourceVersion: the same object, the same content.
  const ackedSeq = new Map(acked.map((a) => [`${a.name}@${a.rv}`, String(a.seq)]));
  const seen = new Set<string>();
  const figures: WatchFigures = {
    server,
    events: w.events.length,
    gaps: 0,
    duplicates: 0,
    outOfOrder: w.outOfOrder,
    unknown: 0,
    relists: w.relists.length,
    resumes: w.resumes,
    errors: [...w.errors].map(([k, v]) => `${k}×${v}`).join(' '),
    samples: [],
  };
  for (const e of w.events) {
    const key = `${e.name}@${e.rv}`;
    if (seen.has(key)) {
      figures.duplicates++;
      if (figures.samples.length < 10) figures.samples.push(`duplicate ${e.type} ${key}`);
    }
    seen.add(key);
    if (!ackedSeq.has(key) || ackedSeq.get(key) !== e.seq) {
      figures.unknown++;
      if (figures.samples.length < 10) figures.samples.push(`unknown ${e.type} ${key}`);
    }
  }
  for (const a of acked) {
    if (a.rv <= w.startRV || seen.has(`${a.name}@${a.rv}`)) continue;
    const covered = w.relists.some((r) => r.fromRV < a.rv && a.rv <= r.toRV && (r.items.get(a.name) ?? -1n) >= a.rv);
    if (covered) continue;
    figures.gaps++;
    if (figures.samples.length < 10) figures.samples.push(`gap ${a.name} seq ${a.seq} rv ${a.rv} (watcher at ${w.lastRV})`);
  }
  return figures;
}
