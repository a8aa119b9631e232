import { describe, expect, it } from 'vitest';
import { ColumnPathError, compileColumnPath } from './column-path.ts';

const obj = {
  metadata: {
    name: 'w1',
    labels: { app: 'web', tier: 'front' },
    annotations: { 'example.com/owner': 'team-a' },
  },
  spec: {
    replicas: 3,
    ports: [
      { name: 'http', port: 80 },
      { name: 'https', port: 443 },
      { name: 'admin', port: 8443 },
    ],
    empty: [],
  },
  status: {
    conditions: [{ type: 'Progressing', status: 'True' }, { reason: 'NoType' }, { type: 'Ready', status: 'False', observed: true }],
    nothing: null,
  },
};

const find = (path: string, o: unknown = obj) => compileColumnPath(path).findAll(o);

describe('compileColumnPath: fields and indexes', () => {
  it('follows dot fields', () => {
    expect(find('.spec.replicas')).toEqual([3]);
    expect(find('.metadata.labels')).toEqual([{ app: 'web', tier: 'front' }]);
  });

  it('finds nothing for missing keys, nulls and fields of non-objects', () => {
    expect(find('.spec.missing')).toEqual([]);
    expect(find('.nope.deeper.still')).toEqual([]);
    expect(find('.status.nothing')).toEqual([null]);
    expect(find('.status.nothing.x')).toEqual([]);
    expect(find('.spec.replicas.x')).toEqual([]);
    expect(find('.spec.ports.name')).toEqual([]);
  });

  it('indexes arrays, from the end too', () => {
    expect(find('.spec.ports[0].name')).toEqual(['http']);
    expect(find('.spec.ports[2].port')).toEqual([8443]);
    expect(find('.spec.ports[-1].name')).toEqual(['admin']);
    expect(find('.spec.ports[-2].name')).toEqual(['https']);
    expect(find('.status.conditions[0].type')).toEqual(['Progressing']);
  });

  it('slices, unions and wildcards', () => {
    expect(find('.spec.ports[1:3].name')).toEqual(['https', 'admin']);
    expect(find('.spec.ports[:2].port')).toEqual([80, 443]);
    expect(find('.spec.ports[1:].port')).toEqual([443, 8443]);
    expect(find('.spec.ports[0,2].name')).toEqual(['http', 'admin']);
    expect(find('.spec.ports[*].port')).toEqual([80, 443, 8443]);
    expect(find('.metadata.labels.*')).toEqual(['web', 'front']);
    expect(find('.spec.empty[0:0]')).toEqual([]);
  });

  it('reads bracketed and escaped keys', () => {
    expect(find(".metadata.labels['app']")).toEqual(['web']);
    expect(find('.metadata.annotations.example\\.com/owner')).toEqual(['team-a']);
  });

  it('descends recursively', () => {
    expect(find('..name')).toEqual(['w1', 'http', 'https', 'admin']);
    expect(find('.spec..port')).toEqual([80, 443, 8443]);
  });

  it('fails (an empty cell) where client-go fails', () => {
    expect(() => find('.spec.ports[3]')).toThrow(/array index out of bounds: index 3, length 3/);
    expect(() => find('.spec.empty[0]')).toThrow(ColumnPathError);
    expect(() => find('.spec.ports[1:5]')).toThrow(/out of bounds/);
    expect(() => find('.spec[0]')).toThrow(/not array or slice/);
    expect(() => find('.spec.ports[-4]')).toThrow(ColumnPathError);
  });

  it('skips a null before an index', () => {
    expect(find('.status.nothing[0]')).toEqual([]);
  });
});

describe('compileColumnPath: filters', () => {
  it('selects list entries by a field', () => {
    expect(find('.status.conditions[?(@.type=="Ready")].status')).toEqual(['False']);
    expect(find(".status.conditions[?(@.type=='Progressing')].status")).toEqual(['True']);
    expect(find('.status.conditions[?(@.type == "Ready")].status')).toEqual(['False']);
    expect(find('.status.conditions[?(@.type!="Ready")].status')).toEqual(['True']);
    expect(find('.status.conditions[?(@.type=="Missing")].status')).toEqual([]);
  });

  it('compares numbers and booleans', () => {
    expect(find('.spec.ports[?(@.port>=443)].name')).toEqual(['https', 'admin']);
    expect(find('.spec.ports[?(@.port<443)].name')).toEqual(['http']);
    expect(find('.status.conditions[?(@.observed==true)].type')).toEqual(['Ready']);
  });

  it('tests existence', () => {
    expect(find('.status.conditions[?(@.reason)]')).toEqual([{ reason: 'NoType' }]);
  });

  it('compares a field with another field', () => {
    const o = {
      items: [
        { a: 1, b: 1, n: 'same' },
        { a: 1, b: 2, n: 'differ' },
      ],
    };
    expect(find('.items[?(@.a==@.b)].n', o)).toEqual(['same']);
  });

  it('fails on incompatible types and on non-lists', () => {
    expect(() => find('.spec.ports[?(@.port=="80")].name')).toThrow(/incompatible types/);
    expect(() => find('.status.conditions[?(@.observed>false)].type')).toThrow(/invalid type/);
    expect(() => find('.spec[?(@.x=="y")]')).toThrow(/cannot be filtered/);
    expect(() => find('.status.nothing[?(@.x=="y")]')).toThrow(/cannot be filtered/);
  });
});

describe('compileColumnPath: syntax', () => {
  it.each([
    ['spec.replicas', /unexpected "s"/],
    ['.spec.ports[0', /unterminated array/],
    ['.spec.ports[a]', /invalid array index a/],
    ['.spec.ports[0:2:1]', /step/],
    ['{.spec.replicas}', /braces/],
    ['.status.conditions[?(@.type==="R")]', /unrecognized filter operator ===/],
    ['.status.conditions[?(@.type=="Ready"', /unterminated filter/],
    ['.status.conditions[?(@.type==Ready)]', /unrecognized filter operand Ready/],
    ['.spec....x', /multiple recursive descent/],
  ])('rejects %s', (path, message) => {
    expect(() => compileColumnPath(path)).toThrow(message);
  });
});
