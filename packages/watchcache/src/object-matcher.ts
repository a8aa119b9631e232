import type { KubeObject } from '@kapi/apimachinery';
import { type AttrFunc, defaultAttrs, matchesEverything, type ObjectAttributes, type SelectionPredicate } from '@kapi/storage';

export type Matcher = (obj: KubeObject) => boolean;

const everything: Matcher = () => true;

/**
 * Compiles selection predicates into matchers that share one attribute computation per object: a thousand watchers
 * with selectors look at an event's labels and fields once, not a thousand times.
 */
export class ObjectMatcher {
  readonly #getAttrs: AttrFunc;
  readonly #attrs = new WeakMap<KubeObject, ObjectAttributes>();

  constructor(getAttrs: AttrFunc = defaultAttrs) {
    this.#getAttrs = getAttrs;
  }

  /** A matcher for `pred` (limit and continue aside). Uses the predicate's own getAttrs when it has one. */
  compile(pred: SelectionPredicate | undefined): Matcher {
    if (!pred || matchesEverything(pred)) return everything;
    const { label, field } = pred;
    const own = pred.getAttrs && pred.getAttrs !== this.#getAttrs ? pred.getAttrs : undefined;
    const attrsOf = own ?? ((obj: KubeObject) => this.attrs(obj));
    return (obj) => {
      const a = attrsOf(obj);
      if (label && !label.empty() && !label.matches(a.labels)) return false;
      if (field && !field.empty() && !field.matches(a.fields)) return false;
      return true;
    };
  }

  /** The cache's attributes of `obj`, computed once per object version. */
  attrs(obj: KubeObject): ObjectAttributes {
    let a = this.#attrs.get(obj);
    if (!a) {
      a = this.#getAttrs(obj);
      this.#attrs.set(obj, a);
    }
    return a;
  }
}
