import type { AckedWrite } from './config-map-writer.ts';
import type { ResumingWatcher, SeenEvent } from './resuming-watcher.ts';

/**
 * Dev-only: the HA harness's verdicts. A write counts as lost when the final list does not show it (or a later write
 * of the same object): an object whose last acknowledged write is a delete must be absent, any other must show its
 * last write. A watcher has a gap when an acknowledged write after its first list reached it neither as an event nor
 * through a relist after a 410 (a relist over (from, to] shows the object at that write's resourceVersion or later,
 * or without it for a delete), and a duplicate when it saw one write twice. A delete's resourceVersion is not
 * answered (kube answers a Status): its DELETED event must fall between the writes of the object before and after it.
 */

export interface FinalState {
  readonly rv: bigint;
  readonly seq: number;
}

export interface ListFigures {
  /** Acknowledged writes the final list does not show. */
  lost: number;
  /** Objects that show their last acknowledged write at another resourceVersion. */
  mismatched: number;
  samples: string[];
}

/** Each object's acknowledged writes in order. */
function byObject(acked: readonly AckedWrite[]): Map<string, AckedWrite[]> {
  const m = new Map<string, AckedWrite[]>();
  for (const w of acked) {
    const list = m.get(w.name) ?? [];
    list.push(w);
    m.set(w.name, list);
  }
  for (const list of m.values()) list.sort((a, b) => a.seq - b.seq);
  return m;
}

const isDelete = (w: AckedWrite) => w.rv === undefined;

export function checkFinalList(finalItems: ReadonlyMap<string, FinalState>, acked: readonly AckedWrite[]): ListFigures {
  const figures: ListFigures = { lost: 0, mismatched: 0, samples: [] };
  const sample = (s: string) => {
    if (figures.samples.length < 10) figures.samples.push(s);
  };
  for (const [name, writes] of byObject(acked)) {
    const item = finalItems.get(name);
    const last = writes[writes.length - 1] as AckedWrite;
    // The write the final list shows: the object's, or when it is absent its last delete.
    const shown = item ? item.seq : Math.max(-1, ...writes.filter(isDelete).map((w) => w.seq));
    const lost = writes.filter((w) => w.seq > shown);
    figures.lost += lost.length;
    for (const w of lost) sample(`lost ${name} seq ${w.seq} (${w.via}, rv ${w.rv ?? '?'}); final: ${item ? `seq ${item.seq}` : 'absent'}`);
    if (item && !isDelete(last) && item.seq === last.seq && item.rv !== last.rv) {
      figures.mismatched++;
      sample(`${name}: final rv ${item.rv}, last acknowledged ${last.rv}`);
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
  const sample = (s: string) => {
    if (figures.samples.length < 10) figures.samples.push(s);
  };
  const objects = byObject(acked);
  /** The acknowledged write an event is, if any: same object, same content, at its resourceVersion (or, for a delete, between its neighbours). */
  const writeOf = (e: SeenEvent): AckedWrite | undefined => {
    const writes = objects.get(e.name) ?? [];
    if (e.type !== 'DELETED') return writes.find((a) => a.rv === e.rv && a.shows === e.seq);
    return writes.find((a, k) => {
      if (!isDelete(a) || a.shows !== e.seq) return false;
      const before = writes[k - 1]?.rv ?? -1n;
      const after = writes[k + 1]?.rv;
      return before < e.rv && (after === undefined || e.rv < after);
    });
  };
  const seen = new Set<AckedWrite>();
  for (const e of w.events) {
    const a = writeOf(e);
    if (!a) {
      figures.unknown++;
      sample(`unknown ${e.type} ${e.name}@${e.rv} seq ${e.seq}`);
    } else if (seen.has(a)) {
      figures.duplicates++;
      sample(`duplicate ${e.type} ${e.name}@${e.rv}`);
    }
    if (a) seen.add(a);
  }
  for (const [name, writes] of objects) {
    writes.forEach((a, k) => {
      if (seen.has(a)) return;
      // A delete's revision lies after the write before it and before the one after it.
      const low = isDelete(a) ? (writes[k - 1]?.rv ?? -1n) : (a.rv as bigint) - 1n;
      const high = isDelete(a) ? writes[k + 1]?.rv : a.rv;
      // Before the watcher's first list (or possibly so, for a delete): the list holds it.
      if (low < w.startRV) return;
      const covered = w.relists.some((r) => {
        if (r.fromRV >= (high ?? r.toRV + 1n) || r.toRV <= low) return false;
        const listed = r.items.get(name);
        if (isDelete(a)) return listed === undefined || (high !== undefined && listed >= high);
        return (listed ?? -1n) >= (a.rv as bigint);
      });
      if (covered) return;
      figures.gaps++;
      sample(`gap ${a.via} ${name} seq ${a.seq} rv ${a.rv ?? `in (${low}, ${high ?? '…'})`} (watcher at ${w.lastRV})`);
    });
  }
  return figures;
}
