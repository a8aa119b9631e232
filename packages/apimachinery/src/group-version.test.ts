import { describe, expect, it } from 'vitest';
import {
  formatAPIVersionKind,
  formatGroupKind,
  formatGroupResource,
  formatGroupVersion,
  groupVersionKindOf,
  parseGroupResource,
  parseGroupVersion,
} from './group-version.ts';

describe('parseGroupVersion / formatGroupVersion', () => {
  it('splits a named group and version', () => {
    expect(parseGroupVersion('apps/v1')).toEqual({ group: 'apps', version: 'v1' });
    expect(parseGroupVersion('example.kapi.dev/v1alpha1')).toEqual({ group: 'example.kapi.dev', version: 'v1alpha1' });
  });

  it('treats a bare version as the core group', () => {
    expect(parseGroupVersion('v1')).toEqual({ group: '', version: 'v1' });
  });

  it('reads "" and "/" as the empty GroupVersion', () => {
    expect(parseGroupVersion('')).toEqual({ group: '', version: '' });
    expect(parseGroupVersion('/')).toEqual({ group: '', version: '' });
  });

  it('rejects more than one slash and empty parts', () => {
    expect(() => parseGroupVersion('a/b/c')).toThrow('unexpected GroupVersion string: a/b/c');
    expect(() => parseGroupVersion('apps/')).toThrow('unexpected GroupVersion string: apps/');
    expect(() => parseGroupVersion('/v1')).toThrow('unexpected GroupVersion string: /v1');
  });

  it('formats back to the apiVersion string', () => {
    expect(formatGroupVersion({ group: 'apps', version: 'v1' })).toBe('apps/v1');
    expect(formatGroupVersion({ group: '', version: 'v1' })).toBe('v1');
    for (const s of ['apps/v1', 'v1', 'widgets.example.kapi.dev/v2beta1']) expect(formatGroupVersion(parseGroupVersion(s))).toBe(s);
  });
});

describe('group resources and kinds', () => {
  it('parses "resource.group" at the first dot', () => {
    expect(parseGroupResource('widgets.example.kapi.dev')).toEqual({ resource: 'widgets', group: 'example.kapi.dev' });
    expect(parseGroupResource('deployments.apps')).toEqual({ resource: 'deployments', group: 'apps' });
    expect(parseGroupResource('pods')).toEqual({ resource: 'pods', group: '' });
  });

  it('formats resources and kinds as kube-apiserver prints them', () => {
    expect(formatGroupResource({ group: 'example.kapi.dev', resource: 'widgets' })).toBe('widgets.example.kapi.dev');
    expect(formatGroupResource({ group: '', resource: 'pods' })).toBe('pods');
    expect(formatGroupKind({ group: 'example.kapi.dev', kind: 'Widget' })).toBe('Widget.example.kapi.dev');
    expect(formatGroupKind({ group: '', kind: 'Pod' })).toBe('Pod');
    expect(formatGroupResource(parseGroupResource('widgets.example.kapi.dev'))).toBe('widgets.example.kapi.dev');
  });

  it('groupVersionKindOf reads an object', () => {
    expect(groupVersionKindOf({ apiVersion: 'apps/v1', kind: 'Deployment' })).toEqual({ group: 'apps', version: 'v1', kind: 'Deployment' });
    expect(groupVersionKindOf({ apiVersion: 'v1', kind: 'Pod' })).toEqual({ group: '', version: 'v1', kind: 'Pod' });
    expect(groupVersionKindOf({ apiVersion: 'example.kapi.dev/v1', kind: 'Widget' })).toEqual({
      group: 'example.kapi.dev',
      version: 'v1',
      kind: 'Widget',
    });
    expect(groupVersionKindOf({})).toEqual({ group: '', version: '', kind: '' });
    expect(() => groupVersionKindOf({ apiVersion: 'a/b/c', kind: 'X' })).toThrow('unexpected GroupVersion string: a/b/c');
  });
});

describe('formatAPIVersionKind (Go schema.FromAPIVersionAndKind and GroupVersionKind.String)', () => {
  const gvk = formatAPIVersionKind;
  it('prints the core group with its leading slash and named groups whole', () => {
    expect(gvk('v1', 'Pod')).toBe('/v1, Kind=Pod');
    expect(gvk('apps/v1', 'Deployment')).toBe('apps/v1, Kind=Deployment');
  });
  it('reads one slash with an empty side as Go does', () => {
    expect(gvk('apps/', 'X')).toBe('apps/, Kind=X');
    expect(gvk('/v1', 'X')).toBe('/v1, Kind=X');
  });
  it('keeps the kind of an apiVersion Go cannot parse, and counts missing or non-string values as empty', () => {
    expect(gvk('a/b/c', 'X')).toBe('/, Kind=X');
    expect(gvk('', 'X')).toBe('/, Kind=X');
    expect(gvk('/', '')).toBe('/, Kind=');
    expect(gvk(7, ['Pod'])).toBe('/, Kind=');
  });
});
