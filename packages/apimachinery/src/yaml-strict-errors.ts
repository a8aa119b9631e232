import { goQuote } from './labels.ts';

/**
 * How kube words what strict YAML decoding finds. sigs.k8s.io/yaml's lenient conversion (YAMLToJSON) keeps a repeated
 * key's last value; its strict one (YAMLToJSONStrict, which kube's decoders run under fieldValidation Strict or Warn)
 * fails with go-yaml's "unmarshal errors", one line per repeat.
 */

const SHORT_PREFIX = 'yaml: unmarshal errors:\n';
const LONG_PREFIX = `error converting YAML to JSON: ${SHORT_PREFIX}`;

/**
 * go-yaml's strict-mode words for a key repeated in a map: `line 10: key "paused" already set in map` (`line`: the
 * repeat's, 1-based; the key as Go's %#v prints the value go-yaml decoded: a string quoted, a number or bool bare).
 */
export function yamlDuplicateKeyMessage(line: number, key: unknown): string {
  const shown = typeof key === 'string' ? goQuote(key) : key === null || key === undefined ? '<nil>' : String(key);
  return `line ${line}: key ${shown} already set in map`;
}

/** The error YAMLToJSONStrict returns for a document whose strict decoding found `errors` (yamlDuplicateKeyMessage's). */
export function yamlStrictDecodingError(errors: readonly string[]): string {
  return `${LONG_PREFIX}  ${errors.join('\n  ')}`;
}

/**
 * kube's addStrictDecodingWarnings: a warning per strict decoding error, a YAML error split into its lines
 * (parseYAMLWarnings), so that each repeated key is a warning of its own.
 */
export function strictDecodingWarnings(errors: readonly string[]): string[] {
  const out: string[] = [];
  for (const e of errors) {
    const rest = e.startsWith(SHORT_PREFIX)
      ? e.slice(SHORT_PREFIX.length)
      : e.startsWith(LONG_PREFIX)
        ? e.slice(LONG_PREFIX.length)
        : undefined;
    if (rest === undefined) out.push(e);
    else for (const line of rest.split('\n')) out.push(line.trim());
  }
  return out;
}
