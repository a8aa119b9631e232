import type { Structural } from '../schema/structural.ts';

/**
 * The part of a structural schema that leads to nodes `pred` picks (embedded resources, set/map lists), or undefined
 * when there is none: walks that only act at those nodes then skip the rest of every object, and skip objects whose
 * schema has none at all. Properties beside a kept additionalProperties are kept (as empty schemas) so that their
 * keys still do not fall through to additionalProperties.
 */
export function relevantPart(s: Structural, pred: (s: Structural) => boolean): Structural | undefined {
  const items = s.items && relevantPart(s.items, pred);
  const additional = s.additionalProperties?.structural && relevantPart(s.additionalProperties.structural, pred);
  const properties = new Map<string, Structural>();
  for (const [k, v] of s.properties ?? []) {
    const part = relevantPart(v, pred);
    if (part) properties.set(k, part);
    else if (additional) properties.set(k, {});
  }
  if (!pred(s) && !items && !additional && properties.size === 0) return undefined;
  const out: Structural = { ...s };
  delete out.items;
  delete out.properties;
  delete out.additionalProperties;
  if (items) out.items = items;
  if (properties.size > 0) out.properties = properties;
  if (additional) out.additionalProperties = { bool: true, structural: additional };
  return out;
}
