import { describe, expect, it } from 'vitest';
import {
  generateNameSuffix,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
  maskTrailingDash,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  simpleNameGenerator,
} from './names.ts';

// Kubernetes' exact wording (k8s.io/apimachinery/pkg/util/validation), including the "',  or '" spacing.
const LABEL_REGEX_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN_REGEX_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const NAME_PART_REGEX_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const QUALIFIED_NAME_MSG =
  "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
const LABEL_VALUE_REGEX_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

describe('isDNS1123Label', () => {
  it.each(['a', '0', 'my-name', '123-abc', 'a--b'])('accepts %j', (v) => {
    expect(isDNS1123Label(v)).toEqual([]);
  });

  it('accepts 63 characters', () => {
    expect(isDNS1123Label('a'.repeat(63))).toEqual([]);
  });

  it.each(['', 'My-name', '-a', 'a-', 'a_b', 'a b', 'é'])('rejects %j with the regex message', (v) => {
    expect(isDNS1123Label(v)).toEqual([LABEL_REGEX_MSG]);
  });

  it('says "must not contain dots" for a valid subdomain', () => {
    expect(isDNS1123Label('a.b')).toEqual(['must not contain dots']);
  });

  it('limits the length to 63', () => {
    expect(isDNS1123Label('a'.repeat(64))).toEqual(['must be no more than 63 characters']);
    expect(isDNS1123Label(`${'a'.repeat(32)}.${'b'.repeat(32)}`)).toEqual(['must be no more than 63 characters', 'must not contain dots']);
    expect(isDNS1123Label(`-${'a'.repeat(63)}`)).toEqual(['must be no more than 63 characters', LABEL_REGEX_MSG]);
  });

  it('counts length in UTF-8 bytes like Go', () => {
    // 32 two-byte characters are 64 bytes.
    expect(isDNS1123Label('é'.repeat(32))).toEqual(['must be no more than 63 characters', LABEL_REGEX_MSG]);
    expect(isDNS1123Label('é'.repeat(31))).toEqual([LABEL_REGEX_MSG]);
  });
});

describe('isDNS1123Subdomain', () => {
  it.each(['a', 'example.com', 'a-b.c-d', '1.2.3'])('accepts %j', (v) => {
    expect(isDNS1123Subdomain(v)).toEqual([]);
  });

  it('accepts 253 characters', () => {
    expect(isDNS1123Subdomain(`${'a'.repeat(126)}.${'b'.repeat(126)}`)).toEqual([]);
  });

  it.each(['', 'Example.com', 'a..b', '.a', 'a.', 'a_b', '-a.b', 'a.b-', 'a b'])('rejects %j with the regex message', (v) => {
    expect(isDNS1123Subdomain(v)).toEqual([SUBDOMAIN_REGEX_MSG]);
  });

  it('limits the length to 253', () => {
    expect(isDNS1123Subdomain('a'.repeat(254))).toEqual(['must be no more than 253 characters']);
    expect(isDNS1123Subdomain(`${'a'.repeat(254)}.`)).toEqual(['must be no more than 253 characters', SUBDOMAIN_REGEX_MSG]);
  });

  it('counts 4-byte characters as 4', () => {
    // 63 emoji = 252 bytes (invalid charset only); 64 = 256 bytes (too long as well).
    expect(isDNS1123Subdomain('😀'.repeat(63))).toEqual([SUBDOMAIN_REGEX_MSG]);
    expect(isDNS1123Subdomain('😀'.repeat(64))).toEqual(['must be no more than 253 characters', SUBDOMAIN_REGEX_MSG]);
  });
});

describe('isQualifiedName', () => {
  it.each(['a', 'A', 'MyName', 'my.name', '123-abc', 'a_b', 'example.com/MyName', 'k8s.io/a-b_c.d'])('accepts %j', (v) => {
    expect(isQualifiedName(v)).toEqual([]);
  });

  it('accepts a 63-character name and a 253-character prefix', () => {
    expect(isQualifiedName('a'.repeat(63))).toEqual([]);
    expect(isQualifiedName(`${'a'.repeat(253)}/${'b'.repeat(63)}`)).toEqual([]);
  });

  it('rejects an empty name part', () => {
    expect(isQualifiedName('')).toEqual(['name part must be non-empty', NAME_PART_REGEX_MSG]);
    expect(isQualifiedName('example.com/')).toEqual(['name part must be non-empty', NAME_PART_REGEX_MSG]);
  });

  it('rejects an empty prefix', () => {
    expect(isQualifiedName('/a')).toEqual(['prefix part must be non-empty']);
  });

  it('rejects a prefix that is not a DNS subdomain', () => {
    expect(isQualifiedName('Example.com/a')).toEqual([`prefix part ${SUBDOMAIN_REGEX_MSG}`]);
    expect(isQualifiedName(`${'a'.repeat(254)}/a`)).toEqual(['prefix part must be no more than 253 characters']);
  });

  it('reports prefix and name errors together', () => {
    expect(isQualifiedName('Bad_/-x')).toEqual([`prefix part ${SUBDOMAIN_REGEX_MSG}`, NAME_PART_REGEX_MSG]);
  });

  it.each(['-a', 'a-', '_a', 'a b', 'a!'])('rejects the name %j', (v) => {
    expect(isQualifiedName(v)).toEqual([NAME_PART_REGEX_MSG]);
  });

  it('limits the name part to 63', () => {
    expect(isQualifiedName('a'.repeat(64))).toEqual(['name part must be no more than 63 characters']);
    expect(isQualifiedName(`x.io/${'a'.repeat(63)}-`)).toEqual(['name part must be no more than 63 characters', NAME_PART_REGEX_MSG]);
  });

  it('rejects more than one slash with the whole-name message only', () => {
    expect(isQualifiedName('a/b/c')).toEqual([QUALIFIED_NAME_MSG]);
    expect(isQualifiedName('//')).toEqual([QUALIFIED_NAME_MSG]);
  });
});

describe('isValidLabelValue', () => {
  it.each(['', 'a', 'MyValue', 'my_value', '12345', 'a.b-c_d'])('accepts %j', (v) => {
    expect(isValidLabelValue(v)).toEqual([]);
  });

  it('accepts 63 characters', () => {
    expect(isValidLabelValue('a'.repeat(63))).toEqual([]);
  });

  it.each(['-a', 'a-', '.a', 'a b', 'a/b', 'a=b', 'é'])('rejects %j', (v) => {
    expect(isValidLabelValue(v)).toEqual([LABEL_VALUE_REGEX_MSG]);
  });

  it('limits the length to 63', () => {
    expect(isValidLabelValue('a'.repeat(64))).toEqual(['must be no more than 63 characters']);
    expect(isValidLabelValue('-'.repeat(64))).toEqual(['must be no more than 63 characters', LABEL_VALUE_REGEX_MSG]);
  });
});

describe('maskTrailingDash', () => {
  it('replaces the dash and the character before it with "a", as Kubernetes does', () => {
    expect(maskTrailingDash('abc-')).toBe('aba');
    expect(maskTrailingDash('a-')).toBe('a');
    expect(maskTrailingDash('a.-')).toBe('aa');
  });

  it('leaves names without a trailing dash, and a lone dash, alone', () => {
    expect(maskTrailingDash('abc')).toBe('abc');
    expect(maskTrailingDash('-')).toBe('-');
    expect(maskTrailingDash('')).toBe('');
  });

  it('keeps a cut multi-byte character invalid', () => {
    expect(maskTrailingDash('xé-')).toBe('x\ufffda');
    expect(isDNS1123Subdomain(maskTrailingDash('xé-'))).toEqual([SUBDOMAIN_REGEX_MSG]);
  });
});

describe('isValidPathSegmentName', () => {
  it("refuses the names that would step out of a path, with path.IsValidPathSegmentName's words", () => {
    expect(isValidPathSegmentName('.')).toEqual(["may not be '.'"]);
    expect(isValidPathSegmentName('..')).toEqual(["may not be '..'"]);
    expect(isValidPathSegmentName('a/b%c')).toEqual(["may not contain '/'", "may not contain '%'"]);
  });

  it('accepts names that merely contain dots', () => {
    for (const name of ['a', '...', '.a', 'a..b', '..a', 'é']) expect(isValidPathSegmentName(name)).toEqual([]);
  });
});

describe('nameIsDNSSubdomain / nameIsDNSLabel', () => {
  it('validates a full name as is', () => {
    expect(nameIsDNSSubdomain('foo.bar', false)).toEqual([]);
    expect(nameIsDNSSubdomain('foo-', false)).toEqual([SUBDOMAIN_REGEX_MSG]);
    expect(nameIsDNSSubdomain('Foo', false)).toEqual([SUBDOMAIN_REGEX_MSG]);
    expect(nameIsDNSLabel('foo', false)).toEqual([]);
    expect(nameIsDNSLabel('foo-', false)).toEqual([LABEL_REGEX_MSG]);
    expect(nameIsDNSLabel('foo.bar', false)).toEqual(['must not contain dots']);
  });

  it('accepts a trailing dash in a generateName prefix', () => {
    expect(nameIsDNSSubdomain('foo-', true)).toEqual([]);
    expect(nameIsDNSSubdomain('foo.bar-', true)).toEqual([]);
    expect(nameIsDNSLabel('foo-', true)).toEqual([]);
  });

  it('still rejects prefixes that are invalid elsewhere', () => {
    expect(nameIsDNSSubdomain('Foo-', true)).toEqual([SUBDOMAIN_REGEX_MSG]);
    expect(nameIsDNSLabel('foo.bar-', true)).toEqual(['must not contain dots']);
    expect(nameIsDNSLabel('-', true)).toEqual([LABEL_REGEX_MSG]);
    expect(nameIsDNSSubdomain('a'.repeat(254), true)).toEqual(['must be no more than 253 characters']);
  });

  it('masks only with prefix=true', () => {
    expect(nameIsDNSSubdomain('abc', true)).toEqual([]);
    expect(nameIsDNSLabel('Abc', true)).toEqual([LABEL_REGEX_MSG]);
  });
});

describe('generateNameSuffix', () => {
  it('is five characters from the Kubernetes alphabet', () => {
    for (let i = 0; i < 200; i++) {
      const s = generateNameSuffix();
      expect(s).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    }
  });

  it('uses the whole alphabet and nothing else', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) for (const c of generateNameSuffix()) seen.add(c);
    expect([...seen].sort().join('')).toBe([...SUFFIX_ALPHABET].sort().join(''));
  });

  it('varies between calls', () => {
    const all = new Set(Array.from({ length: 100 }, () => generateNameSuffix()));
    expect(all.size).toBeGreaterThan(95);
  });
});

describe('simpleNameGenerator', () => {
  it('appends a suffix to the base', () => {
    const name = simpleNameGenerator.generateName('foo-');
    expect(name).toMatch(/^foo-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(nameIsDNSSubdomain(name, false)).toEqual([]);
  });

  it('works with an empty base', () => {
    expect(simpleNameGenerator.generateName('')).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it('keeps a base of 58 characters whole', () => {
    const base = 'b'.repeat(58);
    const name = simpleNameGenerator.generateName(base);
    expect(name.slice(0, 58)).toBe(base);
    expect(name).toHaveLength(63);
  });

  it('cuts a longer base to 58 characters so the name fits in 63', () => {
    const name = simpleNameGenerator.generateName(`${'a'.repeat(57)}xyz`);
    expect(name).toHaveLength(63);
    expect(name.slice(0, 58)).toBe(`${'a'.repeat(57)}x`);
    expect(name.slice(58)).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it('cuts by UTF-8 bytes without splitting a character', () => {
    const name = simpleNameGenerator.generateName('é'.repeat(40));
    expect(name.slice(0, -5)).toBe('é'.repeat(29));
    expect(name).toHaveLength(34);
  });
});
