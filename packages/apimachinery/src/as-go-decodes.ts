import { nonFiniteNumberError } from './finite-numbers.ts';
import { mayHoldLoneSurrogates, replaceLoneSurrogates } from './lone-surrogates.ts';

/**
 * `value` decoded from `text` (by JSON.parse, or the yaml library) as Go's decoder would have it: lone surrogates
 * replaced when the text could hold any; throws an Error in Go's words for a number Go could not decode.
 */
export function asGoDecodes<T>(text: string, value: T): T {
  const overflow = nonFiniteNumberError(text, value);
  if (overflow) throw new Error(overflow);
  return mayHoldLoneSurrogates(text) ? replaceLoneSurrogates(value) : value;
}
