// Cases from structured-merge-diff's fieldpath/path_test.go, plus Path.Compare.
import { describe, expect, it } from 'vitest';
import { comparePaths, makePath, type Path, pathString, pathsEqual } from './path.ts';
import { keyElement as K, valueElement as V } from './path-element.ts';

describe('pathString (path_test.go TestPathString)', () => {
  const table: [string, Path, string][] = [
    ['basic1', makePath('foo', 1), '.foo[1]'],
    ['basic2', makePath('foo', 'bar', 1, 'baz'), '.foo.bar[1].baz'],
    ['associative-list-ref', makePath('foo', K({ a: 'b', c: 1, d: 1.5, e: true })), '.foo[a="b",c=1,d=1.5,e=true]'],
    // biome-ignore lint/suspicious/noApproximativeNumericConstant: SMD's case prints this exact float
    ['sets', makePath('foo', V('b'), V(5), V(false), V(3.14159)), '.foo[="b"][=5][=false][=3.14159]'],
    ['simple field', makePath('spec'), '.spec'],
    [
      'app container image',
      makePath('spec', 'apps', K({ name: 'app-🚀' }), 'container', 'image'),
      '.spec.apps[name="app-🚀"].container.image',
    ],
    [
      'app port',
      makePath('spec', 'apps', K({ name: 'app-💻' }), 'container', 'ports', K({ name: 'port-🔑' }), 'containerPort'),
      '.spec.apps[name="app-💻"].container.ports[name="port-🔑"].containerPort',
    ],
    ['field with space', makePath('spec', 'field with space'), '.spec.field with space'],
    [
      'value with space',
      makePath('spec', 'apps', V('app with space'), 'container', 'image'),
      '.spec.apps[="app with space"].container.image',
    ],
    [
      'value with quotes',
      makePath('spec', 'apps', V('app with "quotes"'), 'container', 'image'),
      '.spec.apps[="app with \\"quotes\\""].container.image',
    ],
    [
      'value with unicode',
      makePath('spec', 'apps', V('app-with-unicøde'), 'container', 'image'),
      '.spec.apps[="app-with-unicøde"].container.image',
    ],
  ];
  it.each(table)('%s', (_name, path, text) => {
    expect(pathString(path)).toBe(text);
  });

  it('prints kube conflict paths', () => {
    expect(pathString(makePath('spec', 'ports', K({ protocol: 'TCP', port: 80 }), 'name'))).toBe(
      '.spec.ports[port=80,protocol="TCP"].name',
    );
    expect(pathString(makePath('metadata', 'finalizers', V('a')))).toBe('.metadata.finalizers[="a"]');
    expect(pathString(makePath('spec', 'list', 0))).toBe('.spec.list[0]');
    expect(pathString(makePath('x', V(null), V(0.00001), V('a\nb')))).toBe('.x[=null][=1e-05][="a\\nb"]');
    expect(pathString(makePath('x', V(1234567.5), V(1e21), V(123456.5), V(-0.5)))).toBe('.x[=1.2345675e+06][=1e+21][=123456.5][=-0.5]');
  });
});

describe('comparePaths', () => {
  it('orders element by element, a prefix first', () => {
    expect(comparePaths(makePath('a'), makePath('a', 'b'))).toBe(-1);
    expect(comparePaths(makePath('a', 'c'), makePath('a', 'b'))).toBe(1);
    expect(comparePaths(makePath('a', 0), makePath('a', 'b'))).toBe(1);
    expect(pathsEqual(makePath('a', K({ x: 1 })), makePath('a', K({ x: 1 })))).toBe(true);
    expect(pathsEqual(makePath('a'), makePath('a', 'b'))).toBe(false);
  });
});
