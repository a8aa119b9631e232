import { nonFiniteNumberError } from './finite-numbers.ts';
import { MAX_DEPTH_MESSAGE, MAX_JSON_DEPTH } from './json-data.ts';
import { goQuote } from './labels.ts';
import { mayHoldLoneSurrogates, replaceLoneSurrogates } from './lone-surrogates.ts';
import { newBadRequest } from './status-error.ts';

/**
 * Duplicate object keys, which JSON.parse silently resolves (last one wins), as sigs.k8s.io/json's strict decoding
 * reports them: one field path per duplicated key (`spec.replicas`, `spec.ports[0].hostPort`), in document order,
 * each reported once however often it repeats.
 */
export interface JsonWithDuplicates {
  /** What JSON.parse gives: the last of duplicated keys wins; `__proto__` keys are plain data. */
  value: unknown;
  /** Field paths of duplicated keys, e.g. `spec.replicas`. */
  duplicates: string[];
}

/** sigs.k8s.io/json stops collecting strict errors at 100, so one hostile body cannot produce unbounded warnings. */
const MAX_DUPLICATES = 100;

type Frame =
  | { array: false; path: string; seen: Set<string>; key: string; expectKey: boolean }
  | { array: true; path: string; index: number };

/** Whether the object about to open is a managedFields entry's fieldsV1 (stack: root, metadata, managedFields, entry). */
function opensFieldsV1(stack: readonly Frame[]): boolean {
  if (stack.length !== 4) return false;
  const entry = stack[3] as Frame;
  const list = stack[2] as Frame;
  return !entry.array && entry.key === 'fieldsV1' && list.array && list.path === 'metadata.managedFields';
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** The index of the quote that closes the string whose opening quote is at `start`. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const q = text.indexOf('"', i);
    // An odd run of backslashes before the quote escapes it.
    let b = q - 1;
    while (text.charCodeAt(b) === 0x5c) b--;
    if ((q - 1 - b) % 2 === 0) return q;
    i = q + 1;
  }
}

const tooDeep = () => newBadRequest(`json parse error: ${MAX_DEPTH_MESSAGE}`);

/** The characters that open or close a container or a string: all a skipped subtree's scan needs to look at. */
const STRUCTURE = /[{}[\]"]/g;

/**
 * The index after the container that opens at `start` (valid JSON: JSON.parse accepted it), its keys unchecked;
 * `depth` containers are open around it. A regex jumps from one bracket or quote to the next instead of looking at
 * every character (fieldsV1 is a few hundred bytes of keys and braces on every write that sends managedFields back).
 */
function skipRaw(text: string, start: number, depth: number): number {
  let open = 0;
  STRUCTURE.lastIndex = start;
  for (let m = STRUCTURE.exec(text); m; m = STRUCTURE.exec(text)) {
    const i = m.index;
    switch (text.charCodeAt(i)) {
      case 0x22 /* " */:
        STRUCTURE.lastIndex = stringEnd(text, i) + 1;
        break;
      case 0x7b /* { */:
      case 0x5b /* [ */:
        if (depth + open >= MAX_JSON_DEPTH) throw tooDeep();
        open++;
        break;
      default:
        if (--open === 0) return i + 1;
    }
  }
  return text.length;
}

/** The path of the value the scanner is about to read, given the innermost open container. */
function childPath(top: Frame | undefined): string {
  if (!top) return '';
  if (top.array) return `${top.path}[${top.index}]`;
  return top.path === '' ? top.key : `${top.path}.${top.key}`;
}

/** How parseJsonDetectingDuplicates reads a body. */
export interface DuplicateScanOptions {
  /**
   * Keys inside `metadata.managedFields[*].fieldsV1` are not checked: a built-in kind's Go type holds fieldsV1 as raw
   * bytes (metav1.FieldsV1's UnmarshalJSON), which strict decoding skips over without looking at its keys. A custom
   * resource is decoded into maps, every key checked, so its bodies leave this off. Depth is counted either way.
   */
  rawFieldsV1?: boolean;
}

/**
 * Whether `text` is exactly JSON.stringify of its parsed `value` (compact JSON, as clients and kapi's own encoder send
 * it): then no object in it repeats a key, since the encoder writes each own key once and a repeated one would be in
 * the text but not in the value. A text shorter than 2 × MAX_JSON_DEPTH cannot nest too deep either (every level
 * takes an opening and a closing bracket), so the scan below is skipped — one native encode instead of a walk that
 * allocates per key.
 */
function isCanonical(text: string, value: unknown): boolean {
  if (text.length >= 2 * MAX_JSON_DEPTH) return false;
  try {
    return JSON.stringify(value) === text;
  } catch {
    return false;
  }
}

/**
 * Parses `text` as JSON, also reporting duplicate object keys. Malformed JSON, and JSON nested deeper than
 * MAX_JSON_DEPTH (10,000) levels, is a 400 BadRequest, as kube-apiserver's decoder refuses it.
 * JSON.parse builds the value (native speed, its exact semantics); a scanner over the then known-valid text finds the
 * duplicates and the depth, with an explicit stack so that nesting JSON.parse accepts cannot overflow it.
 */
export function parseJsonDetectingDuplicates(text: string, options: DuplicateScanOptions = {}): JsonWithDuplicates {
  const rawFieldsV1 = options.rawFieldsV1 === true;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw newBadRequest(`json parse error: ${(err as Error).message}`);
  }
  // Lone surrogates become U+FFFD, as Go's decoder makes them (rare: only an escape writes one).
  const loneSurrogates = mayHoldLoneSurrogates(text);
  if (loneSurrogates) value = replaceLoneSurrogates(value);
  else if (isCanonical(text, value)) return { value, duplicates: [] };
  // A number Go could not decode is written as null by JSON.stringify, so it never is in a canonical text.
  const overflow = nonFiniteNumberError(text, value);
  if (overflow) throw newBadRequest(overflow);
  return { value, duplicates: scanDuplicates(text, rawFieldsV1) };
}

/**
 * The duplicated keys of `text`, a valid JSON text already decoded as `value` (JSON.parse's, lone surrogates replaced
 * or not), reported as parseJsonDetectingDuplicates reports them: for a caller that decodes the text its own way and
 * needs only the keys, without a second parse. A 400 when the text nests deeper than MAX_JSON_DEPTH.
 */
export function duplicateKeysIn(text: string, value: unknown, options: DuplicateScanOptions = {}): string[] {
  if (!mayHoldLoneSurrogates(text) && isCanonical(text, value)) return [];
  return scanDuplicates(text, options.rawFieldsV1 === true);
}

/** The scan of a known-valid JSON text for duplicated keys and depth (parseJsonDetectingDuplicates' second half). */
function scanDuplicates(text: string, rawFieldsV1: boolean): string[] {
  const duplicates: string[] = [];
  const reported = new Set<string>();
  const stack: Frame[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (isSpace(c) || c === 0x3a /* : */) {
      i++;
      continue;
    }
    const top = stack[stack.length - 1];
    switch (c) {
      case 0x7b /* { */:
        if (stack.length >= MAX_JSON_DEPTH) throw tooDeep();
        if (rawFieldsV1 && opensFieldsV1(stack)) {
          i = skipRaw(text, i, stack.length);
          break;
        }
        stack.push({ array: false, path: childPath(top), seen: new Set(), key: '', expectKey: true });
        i++;
        break;
      case 0x5b /* [ */:
        if (stack.length >= MAX_JSON_DEPTH) throw tooDeep();
        stack.push({ array: true, path: childPath(top), index: 0 });
        i++;
        break;
      case 0x7d /* } */:
      case 0x5d /* ] */:
        stack.pop();
        i++;
        break;
      case 0x2c /* , */:
        if (top) {
          if (top.array) top.index++;
          else top.expectKey = true;
        }
        i++;
        break;
      case 0x22 /* " */:
        {
          const end = stringEnd(text, i);
          if (top && !top.array && top.expectKey) {
            const raw = text.slice(i + 1, end);
            // Escapes must be resolved: "a" and "\u0061" are the same key.
            const key = raw.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
            if (top.seen.has(key)) {
              const path = top.path === '' ? key : `${top.path}.${key}`;
              if (!reported.has(path) && duplicates.length < MAX_DUPLICATES) {
                reported.add(path);
                duplicates.push(path);
              }
            } else top.seen.add(key);
            top.key = key;
            top.expectKey = false;
          }
          i = end + 1;
          break;
        }
      default:
        // A number, true, false or null: nothing in it can open, close or separate anything.
        i++;
        while (i < n) {
          const d = text.charCodeAt(i);
          if (d === 0x2c || d === 0x7d || d === 0x5d || isSpace(d)) break;
          i++;
        }
    }
  }
  return duplicates;
}

/**
 * How kube-apiserver words a duplicate field in a warning or a strict decoding error: `duplicate field "spec.replicas"`,
 * the path quoted by strconv.Quote as sigs.k8s.io/json's strictError does.
 */
export function duplicateFieldMessage(path: string): string {
  return `duplicate field ${goQuote(path)}`;
}
