/**
 * Patterns over field sets (SMD's SetMatcher / PrefixMatcher) and the filters built from them and from sets: kube
 * uses exclude filters for a strategy's reset fields and include-matcher filters where a subresource may only
 * touch some paths (e.g. `.spec.containers[*].resources`).
 */
import { comparePathElements, type PathElement, pathElementsEqual } from './path-element.ts';
import { type Elem, FieldSet } from './set.ts';

/** One step of a pattern: any element, or one equal to `element`. */
export type PathElementMatcher = { readonly wildcard: true } | { readonly wildcard: false; readonly element: PathElement };

/** The pattern step that matches any path element (SMD's MatchAnyPathElement). */
export const MATCH_ANY_ELEMENT: PathElementMatcher = Object.freeze({ wildcard: true });

interface MemberMatcher {
  readonly path: PathElementMatcher;
  readonly child: SetMatcher;
}

/** Wildcards first, then by PathElement (two wildcards never compare equal, as SMD's Compare has it). */
function compareMatchers(a: PathElementMatcher, b: PathElementMatcher): number {
  if (a.wildcard && !b.wildcard) return -1;
  if (b.wildcard) return 1;
  return comparePathElements((a as { element: PathElement }).element, (b as { element: PathElement }).element);
}

function matches(p: PathElementMatcher, pe: PathElement): boolean {
  return p.wildcard || pathElementsEqual(p.element, pe);
}

/** Which paths of a set a pattern keeps; a wildcard matcher keeps everything. */
export class SetMatcher {
  readonly wildcard: boolean;
  private readonly members: readonly MemberMatcher[];

  private constructor(wildcard: boolean, members: readonly MemberMatcher[]) {
    this.wildcard = wildcard;
    this.members = members;
  }

  private static readonly ANY = new SetMatcher(true, []);

  /** Matches every set (SMD's MatchAnySet). */
  static any(): SetMatcher {
    return SetMatcher.ANY;
  }

  /**
   * The paths that start with these steps, and everything under them (SMD's PrefixMatcher): a string is a field
   * name, a number an index, MATCH_ANY_ELEMENT any element, or a PathElement.
   */
  static prefix(...parts: readonly (string | number | PathElement | PathElementMatcher)[]): SetMatcher {
    let current = SetMatcher.ANY;
    for (let i = parts.length - 1; i >= 0; i--) {
      const part = parts[i] as string | number | PathElement | PathElementMatcher;
      let path: PathElementMatcher;
      if (typeof part === 'string') path = { wildcard: false, element: { fieldName: part } };
      else if (typeof part === 'number') path = { wildcard: false, element: { index: part } };
      else if ('wildcard' in part) path = part;
      else {
        if ('key' in part && Object.keys(part.key).length === 0) {
          throw new Error('associative list key type path elements must have at least one key (got zero)');
        }
        path = { wildcard: false, element: part };
      }
      current = new SetMatcher(false, [{ path, child: current }]);
    }
    return current;
  }

  /** Matches what either matcher matches; members for the same element merge their children. */
  merge(o: SetMatcher): SetMatcher {
    if (this.wildcard || o.wildcard) return SetMatcher.ANY;
    const merged = [...this.members];
    for (const m of o.members) {
      const at = this.members.findIndex((x) => compareMatchers(x.path, m.path) === 0);
      if (at >= 0) {
        const mine = merged[at] as MemberMatcher;
        merged[at] = { path: mine.path, child: mine.child.merge(m.child) };
      } else merged.push(m);
    }
    merged.sort((a, b) => compareMatchers(a.path, b.path));
    return new SetMatcher(false, merged);
  }

  /** The paths of `set` the pattern matches (SMD's Set.FilterIncludeMatches). */
  filter(set: FieldSet): FieldSet {
    if (this.wildcard) return set;
    const m: Elem[] = [];
    for (const e of set.m) if (this.members.some((pm) => matches(pm.path, e.pe))) m.push(e);
    const ce: Elem[] = [];
    const cs: FieldSet[] = [];
    for (let i = 0; i < set.ce.length; i++) {
      const e = set.ce[i] as Elem;
      const pm = this.members.find((c) => matches(c.path, e.pe));
      if (pm === undefined) continue;
      const sub = pm.child.filter(set.cs[i] as FieldSet);
      if (!sub.isEmpty()) {
        ce.push(e);
        cs.push(sub);
      }
    }
    return m.length === 0 && ce.length === 0 ? FieldSet.empty() : new FieldSet(m, ce, cs);
  }
}

/** Removes paths from a set (SMD's Filter). */
export type FieldSetFilter = (set: FieldSet) => FieldSet;

/** Removes the paths of `exclude` and everything under them (SMD's NewExcludeSetFilter: a recursive difference). */
export function excludeSetFilter(exclude: FieldSet): FieldSetFilter {
  return (set) => set.recursiveDifference(exclude);
}

/** Keeps only the paths some matcher matches; no matchers keeps everything (SMD's NewIncludeMatcherFilter). */
export function includeMatcherFilter(...matchers: readonly SetMatcher[]): FieldSetFilter {
  let matcher = matchers[0] ?? SetMatcher.any();
  for (let i = 1; i < matchers.length; i++) matcher = matcher.merge(matchers[i] as SetMatcher);
  return (set) => matcher.filter(set);
}
