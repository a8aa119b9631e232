import { describe, expect, it } from 'vitest';
import type { FieldSet } from '../fieldpath/set.ts';
import { jsonEqual } from '../json-data.ts';
import { compare } from './compare.ts';
import { merge } from './merge.ts';
import { Schema, type TypedSchema, UNTYPED_DEDUCED } from './schema.ts';
import { NS, P, y } from './test-support/smd.ts';
import { toFieldSet } from './to-field-set.ts';
import { validate } from './validate.ts';

// SMD typed/deduced_test.go, as data: values typed by the deduced type alone (maps granular, lists atomic).
const deduced: TypedSchema = { schema: Schema.deduced(), typeRef: { namedType: UNTYPED_DEDUCED } };

describe('deduced type (SMD deduced_test)', () => {
  it.each(['{"a": null}', '{"a": ["a", "b"]}', '{"a": {"b": [], "c": 2, "d": {"f": "string"}}}'])('validates %s', (text) => {
    expect(validate(deduced, y(text))).toEqual([]);
  });

  const triplets: [string, string, string][] = [
    ['{"key":"foo","value":{}}', '{"key":"foo","value":1}', '{"key":"foo","value":1}'],
    ['{"key":"foo","value":1}', '{"key":"foo","value":{}}', '{"key":"foo","value":{}}'],
    ['{"key":"foo","value":null}', '{"key":"foo","value":{}}', '{"key":"foo","value":{}}'],
    ['{"key":"foo"}', '{"value":true}', '{"key":"foo","value":true}'],
    ['{}', '{"inner":{}}', '{"inner":{}}'],
    ['{}', '{"inner":null}', '{"inner":null}'],
    ['{"inner":null}', '{"inner":{}}', '{"inner":{}}'],
    ['{"inner":{}}', '{"inner":null}', '{"inner":null}'],
    ['{"inner":{}}', '{"inner":{}}', '{"inner":{}}'],
    ['{}', '{"inner":{}}', '{"inner":{}}'],
    ['{"inner":null}', '{"inner":{}}', '{"inner":{}}'],
    ['{"inner":{}}', '{"inner":null}', '{"inner":null}'],
    ['{}', '{"inner":[]}', '{"inner":[]}'],
    ['{"inner":null}', '{"inner":[]}', '{"inner":[]}'],
    ['{"inner":[]}', '{"inner":null}', '{"inner":null}'],
    ['{"inner":[]}', '{"inner":[]}', '{"inner":[]}'],
    ['{"numeric":1}', '{"numeric":3.14159}', '{"numeric":3.14159}'],
    ['{"numeric":3.14159}', '{"numeric":1}', '{"numeric":1}'],
    ['{"string":"aoeu"}', '{"bool":true}', '{"string":"aoeu","bool":true}'],
    ['{"atomic":["a","b","c"]}', '{"atomic":["a","b"]}', '{"atomic":["a","b"]}'],
    ['{"atomic":["a","b"]}', '{"atomic":["a","b","c"]}', '{"atomic":["a","b","c"]}'],
    ['{"atomic":["a","b","c"]}', '{"atomic":[]}', '{"atomic":[]}'],
    ['{"atomic":[]}', '{"atomic":["a","b","c"]}', '{"atomic":["a","b","c"]}'],
    ['{"":[true]}', '{"setBool":[false]}', '{"":[true],"setBool":[false]}'],
    ['{"atomic":[1,2,3.14159]}', '{"atomic":[1,2,3]}', '{"atomic":[1,2,3]}'],
    [
      '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}',
      '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}',
      '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}',
    ],
    [
      '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}',
      '{"list":[{"key":"a","id":2,"value":{"a":"a"}}]}',
      '{"list":[{"key":"a","id":2,"value":{"a":"a"}}]}',
    ],
    [
      '{"list":[{"key":"a","id":1},{"key":"b","id":1}]}',
      '{"list":[{"key":"a","id":1},{"key":"a","id":2}]}',
      '{"list":[{"key":"a","id":1},{"key":"a","id":2}]}',
    ],
    ['{"atomicList":["a","a","a"]}', '{"atomicList":null}', '{"atomicList":null}'],
    ['{"atomicList":["a","b","c"]}', '{"atomicList":[]}', '{"atomicList":[]}'],
    ['{"atomicList":["a","a","a"]}', '{"atomicList":["a","a"]}', '{"atomicList":["a","a"]}'],
    [
      '{"a":1,"b":[null],"c":{"id":2,"list":["value"]}}',
      '{"a":2,"b":["value"],"c":{"name":"my_name"}}',
      '{"a":2,"b":["value"],"c":{"id":2,"list":["value"],"name":"my_name"}}',
    ],
  ];

  triplets.forEach(([l, r, o], i) => {
    it(`merges ${i}`, () => {
      const got = merge(deduced, y(l), y(r));
      expect(jsonEqual(got, y(o)), `expected ${o} got ${JSON.stringify(got)}`).toBe(true);
    });
  });

  const sets: [string, FieldSet][] = [
    ['{"key":"foo","value":1}', NS(P('key'), P('value'))],
    ['{"key":"foo","value":{"a": "b"}}', NS(P('key'), P('value'), P('value', 'a'))],
    ['{"key":"foo","value":null}', NS(P('key'), P('value'))],
    ['{"key":"foo"}', NS(P('key'))],
    ['{"key":"foo","value":true}', NS(P('key'), P('value'))],
    ['{"numeric":1}', NS(P('numeric'))],
    ['{"numeric":3.14159}', NS(P('numeric'))],
    ['{"string":"aoeu"}', NS(P('string'))],
    ['{"bool":true}', NS(P('bool'))],
    ['{"bool":false}', NS(P('bool'))],
    ['{"list":["a","b","c"]}', NS(P('list'))],
    ['{"color":{}}', NS(P('color'))],
    ['{"color":null}', NS(P('color'))],
    ['{"color":{"R":255,"G":0,"B":0}}', NS(P('color'), P('color', 'R'), P('color', 'G'), P('color', 'B'))],
    ['{"arbitraryWavelengthColor":null}', NS(P('arbitraryWavelengthColor'))],
    ['{"arbitraryWavelengthColor":{"IR":255}}', NS(P('arbitraryWavelengthColor'), P('arbitraryWavelengthColor', 'IR'))],
    ['{"args":[]}', NS(P('args'))],
    ['{"args":null}', NS(P('args'))],
    ['{"args":[null]}', NS(P('args'))],
    ['{"args":[{"key":"a","value":"b"},{"key":"c","value":"d"}]}', NS(P('args'))],
    ['{"atomicList":["a","a","a"]}', NS(P('atomicList'))],
  ];

  sets.forEach(([text, set], i) => {
    it(`toFieldSet ${i}`, () => {
      const got = toFieldSet(deduced, y(text));
      expect(got.equals(set), `wanted\n${set}\ngot\n${got}`).toBe(true);
    });
  });

  const quints: { lhs: string; rhs: string; removed: FieldSet; modified: FieldSet; added: FieldSet }[] = [
    {
      lhs: '{"key":"foo","value":1}',
      rhs: '{"key":"foo","value":1}',
      removed: NS(),
      modified: NS(),
      added: NS(),
    },
    {
      lhs: '{"key":"foo","value":{}}',
      rhs: '{"key":"foo","value":1}',
      removed: NS(),
      modified: NS(P('value')),
      added: NS(),
    },
    {
      lhs: '{"key":"foo","value":1}',
      rhs: '{"key":"foo","value":{}}',
      removed: NS(),
      modified: NS(P('value')),
      added: NS(),
    },
    {
      lhs: '{"key":"foo","value":1}',
      rhs: '{"key":"foo","value":{"deep":{"nested":1}}}',
      removed: NS(),
      modified: NS(P('value')),
      added: NS(P('value', 'deep'), P('value', 'deep', 'nested')),
    },
    {
      lhs: '{"key":"foo","value":null}',
      rhs: '{"key":"foo","value":{}}',
      removed: NS(),
      modified: NS(P('value')),
      added: NS(),
    },
    {
      lhs: '{"key":"foo"}',
      rhs: '{"value":true}',
      removed: NS(P('key')),
      modified: NS(),
      added: NS(P('value')),
    },
    {
      lhs: '{"key":"foot"}',
      rhs: '{"key":"foo","value":true}',
      removed: NS(),
      modified: NS(P('key')),
      added: NS(P('value')),
    },
    {
      lhs: '{}',
      rhs: '{"inner":{}}',
      removed: NS(),
      modified: NS(),
      added: NS(P('inner')),
    },
    {
      lhs: '{}',
      rhs: '{"inner":null}',
      removed: NS(),
      modified: NS(),
      added: NS(P('inner')),
    },
    {
      lhs: '{"inner":null}',
      rhs: '{"inner":{}}',
      removed: NS(),
      modified: NS(P('inner')),
      added: NS(),
    },
    {
      lhs: '{"inner":{}}',
      rhs: '{"inner":null}',
      removed: NS(),
      modified: NS(P('inner')),
      added: NS(),
    },
    {
      lhs: '{"inner":{}}',
      rhs: '{"inner":{}}',
      removed: NS(),
      modified: NS(),
      added: NS(),
    },
    {
      lhs: '{}',
      rhs: '{"inner":[]}',
      removed: NS(),
      modified: NS(),
      added: NS(P('inner')),
    },
    {
      lhs: '{}',
      rhs: '{"inner":null}',
      removed: NS(),
      modified: NS(),
      added: NS(P('inner')),
    },
    {
      lhs: '{"inner":null}',
      rhs: '{"inner":[]}',
      removed: NS(),
      modified: NS(P('inner')),
      added: NS(),
    },
    {
      lhs: '{"inner":[]}',
      rhs: '{"inner":null}',
      removed: NS(),
      modified: NS(P('inner')),
      added: NS(),
    },
    {
      lhs: '{"inner":[]}',
      rhs: '{"inner":[]}',
      removed: NS(),
      modified: NS(),
      added: NS(),
    },
    {
      lhs: '{"a":{},"b":{}}',
      rhs: '{"a":{},"b":{}}',
      removed: NS(),
      modified: NS(),
      added: NS(),
    },
    {
      lhs: '{"a":{}}',
      rhs: '{"b":{}}',
      removed: NS(P('a')),
      modified: NS(),
      added: NS(P('b')),
    },
    {
      lhs: '{"a":{"b":{"c":{}}}}',
      rhs: '{"a":{"b":{}}}',
      removed: NS(P('a', 'b', 'c')),
      modified: NS(),
      added: NS(),
    },
    {
      lhs: '{"a":{"b":{"c":[true]}}}',
      rhs: '{"a":{"b":[false]}}',
      removed: NS(P('a', 'b', 'c')),
      modified: NS(P('a', 'b')),
      added: NS(),
    },
    {
      lhs: '{"a":{}}',
      rhs: '{"a":{"b":"true"}}',
      removed: NS(),
      modified: NS(),
      added: NS(P('a', 'b')),
    },
    {
      lhs: '{"numeric":1}',
      rhs: '{"numeric":3.14159}',
      removed: NS(),
      modified: NS(P('numeric')),
      added: NS(),
    },
    {
      lhs: '{"numeric":3.14159}',
      rhs: '{"numeric":1}',
      removed: NS(),
      modified: NS(P('numeric')),
      added: NS(),
    },
    {
      lhs: '{"string":"aoeu"}',
      rhs: '{"bool":true}',
      removed: NS(P('string')),
      modified: NS(),
      added: NS(P('bool')),
    },
    {
      lhs: '{"list":["a","b"]}',
      rhs: '{"list":["a","b","c"]}',
      removed: NS(),
      modified: NS(P('list')),
      added: NS(),
    },
    {
      lhs: '{}',
      rhs: '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}',
      removed: NS(),
      modified: NS(),
      added: NS(P('list')),
    },
    {
      lhs: '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}',
      rhs: '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}',
      removed: NS(),
      modified: NS(),
      added: NS(),
    },
    {
      lhs: '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}',
      rhs: '{"list":[{"key":"a","id":1,"value":{"a":"b"}}]}',
      removed: NS(),
      modified: NS(P('list')),
      added: NS(),
    },
    {
      lhs: '{"atomicList":["a","a","a"]}',
      rhs: '{"atomicList":null}',
      removed: NS(),
      modified: NS(P('atomicList')),
      added: NS(),
    },
    {
      lhs: '{"atomicList":["a","a","a"]}',
      rhs: '{"atomicList":["a","a"]}',
      removed: NS(),
      modified: NS(P('atomicList')),
      added: NS(),
    },
  ];

  quints.forEach((q, i) => {
    it(`compares ${i}`, () => {
      const got = compare(deduced, y(q.lhs), y(q.rhs));
      expect(got.added.equals(q.added), `added\n${got.added}`).toBe(true);
      expect(got.modified.equals(q.modified), `modified\n${got.modified}`).toBe(true);
      expect(got.removed.equals(q.removed), `removed\n${got.removed}`).toBe(true);
      const back = compare(deduced, y(q.rhs), y(q.lhs));
      expect(back.modified.equals(got.modified)).toBe(true);
      expect(back.removed.equals(got.added)).toBe(true);
      expect(back.added.equals(got.removed)).toBe(true);
    });
  });
});
