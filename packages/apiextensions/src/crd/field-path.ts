import type { Structural } from '../schema/structural.ts';

/** A field path kube's ValidFieldPath accepted: its segments and the schema it points to. */
export interface ValidatedFieldPath {
  /** The path as field.Path prints it (`spec.labels[app]`); its first segment is the root. */
  path: string;
  root: string;
  schema: Structural | undefined;
}

/** Splits as ValidFieldPath's scanner: '.', '[' and ']' alone, a single-quoted string whole, other runs of text. */
function tokens(s: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < s.length) {
    if (s[i] === "'") {
      let j = i + 1;
      while (j < s.length && !(s[j] === "'" && s[j - 1] !== '\\')) j++;
      out.push(s.slice(i, Math.min(j + 1, s.length)));
      i = j + 1;
      continue;
    }
    if (s[i] === '.' || s[i] === '[' || s[i] === ']') {
      out.push(s[i] as string);
      i++;
      continue;
    }
    let j = i;
    while (j < s.length && s[j] !== '.' && s[j] !== '[' && s[j] !== ']') j++;
    out.push(s.slice(i, j));
    i = j;
  }
  return out;
}

const ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', "'": "'", '\\': '\\' };

function unescapeSingleQuote(s: string): string {
  return s.replace(/\\(.)/gs, (m, c: string) => {
    const v = ESCAPES[c];
    if (v === undefined) throw new Error(`invalid string literal: invalid escape char ${m}`);
    return v;
  });
}

/**
 * kube's cel.ValidFieldPath: a JSON path of field accessors (`.spec.color`) and, when allowed, quoted map keys
 * (`.labels['app']`) that exists in `schema`. Throws an Error with kube's words when it does not.
 */
export function validFieldPath(jsonPath: string, schema: Structural, allowArrayNotation = true): ValidatedFieldPath {
  let current: Structural | undefined = schema;
  let path = '';
  let root = '';
  const step = (name: string) => {
    const s = current;
    if (s?.properties !== undefined) {
      path = path === '' ? name : `${path}.${name}`;
      if (root === '') root = name;
      const next = s.properties.get(name);
      if (!next) throw new Error('does not refer to a valid field');
      current = next;
    } else if (s?.additionalProperties !== undefined) {
      path = `${path}[${name}]`;
      if (root === '') root = `[${name}]`;
      current = s.additionalProperties.structural;
    } else throw new Error('does not refer to a valid field');
  };
  const toks = tokens(jsonPath);
  for (let i = 0; i < toks.length; i++) {
    const tok = toks[i] as string;
    if (tok === '[') {
      if (!allowArrayNotation) throw new Error('array notation is not allowed');
      const quoted = toks[++i];
      if (quoted === undefined) throw new Error('unexpected end of JSON path');
      if (quoted.length < 2 || !quoted.startsWith("'") || !quoted.endsWith("'"))
        throw new Error(`expected single quoted string but got ${quoted}`);
      step(unescapeSingleQuote(quoted.slice(1, -1)));
      const close = toks[++i];
      if (close === undefined) throw new Error('unexpected end of JSON path');
      if (close !== ']') throw new Error(`expected ] but got ${close}`);
    } else if (tok === '.') {
      const name = toks[++i];
      if (name === undefined) throw new Error('unexpected end of JSON path');
      step(name);
    } else throw new Error(`expected [ or . but got: ${tok}`);
  }
  return { path, root, schema: current };
}
