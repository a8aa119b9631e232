import type { KubeObject } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { defaultStrategy } from './strategy.ts';

const widget = (spec: object, status?: object, generation?: number): KubeObject => ({
  apiVersion: 'example.kapi.dev/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'd', labels: { app: 'a' }, ...(generation ? { generation } : {}) },
  spec,
  ...(status ? { status } : {}),
});

const withStatus = defaultStrategy({ namespaced: true, subresources: { status: true }, selectableFields: [{ jsonPath: '.spec.color' }] });
const withoutStatus = defaultStrategy({ namespaced: false, subresources: { status: false }, selectableFields: [] });

describe('defaultStrategy', () => {
  it('drops status on create when status is a subresource, and starts generation at 1', () => {
    const obj = widget({ a: 1 }, { ready: true });
    withStatus.prepareForCreate({}, obj);
    expect(obj.status).toBeUndefined();
    expect(obj.metadata.generation).toBe(1);
    const kept = widget({ a: 1 }, { ready: true });
    withoutStatus.prepareForCreate({}, kept);
    expect(kept.status).toEqual({ ready: true });
  });

  it('keeps the stored status on update when status is a subresource', () => {
    const old = widget({ a: 1 }, { ready: true }, 1);
    const obj = widget({ a: 1 }, { ready: false }, 1);
    withStatus.prepareForUpdate({}, obj, old);
    expect(obj.status).toEqual({ ready: true });
    expect(obj.metadata.generation).toBe(1);
    const noStatus = widget({ a: 1 }, { ready: false }, 1);
    withStatus.prepareForUpdate({}, noStatus, widget({ a: 1 }, undefined, 1));
    expect(noStatus.status).toBeUndefined();
  });

  it('bumps generation when anything but metadata (and a separate status) changes', () => {
    const old = widget({ a: 1 }, { ready: true }, 3);
    const specChange = widget({ a: 2 }, { ready: true });
    withStatus.prepareForUpdate({}, specChange, old);
    expect(specChange.metadata.generation).toBe(4);
    const labelChange: KubeObject = { ...widget({ a: 1 }, { ready: true }), metadata: { name: 'w', labels: { app: 'b' } } };
    withStatus.prepareForUpdate({}, labelChange, old);
    expect(labelChange.metadata.generation).toBe(3);
    const statusChange = widget({ a: 1 }, { ready: false });
    withoutStatus.prepareForUpdate({}, statusChange, old);
    expect(statusChange.metadata.generation).toBe(4);
  });

  it('behaves as a custom resource: no create on update, updates need a resourceVersion, no extra rules', () => {
    expect(withStatus.allowCreateOnUpdate()).toBe(false);
    expect(withStatus.allowUnconditionalUpdate()).toBe(false);
    expect(withStatus.validate({}, widget({}))).toEqual([]);
    expect(withStatus.validateUpdate({}, widget({}), widget({}))).toEqual([]);
  });

  it('gives labels, name, namespace (when namespaced) and selectable fields as attributes', () => {
    expect(withStatus.getAttrs(widget({ color: 'red' }))).toEqual({
      labels: { app: 'a' },
      fields: { 'metadata.name': 'w', 'metadata.namespace': 'd', 'spec.color': 'red' },
    });
    expect(withStatus.getAttrs(widget({})).fields['spec.color']).toBe('');
    expect(withoutStatus.getAttrs(widget({})).fields).toEqual({ 'metadata.name': 'w' });
  });
});
